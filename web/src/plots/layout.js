// Which panels of a Result are shown open and which folded; no DOM (the site build uses it too).
// A Result's panels as shown: `lead`, the ones it opens with (the core's lead_panels:
// its headline numbers, its notes above the charts, its main chart), and `rest`, folded
// under "More results". Panels drawn beside a control (`besideShown`; a page without
// the control folds them with the rest) are in neither. A Result without "lead" shows
// every panel open.
export function splitPanels(result, besideShown = () => false) {
  const panels = result.panels || [];
  if (!Array.isArray(result.lead)) return { lead: panels.filter((p) => !besideShown(p)), rest: [] };
  const open = new Set(result.lead);
  return {
    lead: result.lead.map((k) => panels[k]).filter(Boolean),
    rest: panels.filter((p, k) => !open.has(k) && !besideShown(p)),
  };
}
