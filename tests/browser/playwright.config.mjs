// The browser suites under @playwright/test: one project per ctest suite (tests/suites.cmake
// runs `playwright test -c tests/browser/playwright.config.mjs --project <suite>`), each
// project one spec file (the `browser` suite three: run-*.spec.mjs). Debian's Chromium, launched with the options every browser test
// of the repository uses (serve-and-launch.mjs); no browser is downloaded. The tests of a
// file run one after the other in one worker (they share a server, pages and what earlier
// tests found), and ctest runs two suites side by side on two cores.
import { chromiumLaunchOptions } from './serve-and-launch.mjs';

const suites = ['browser:run-*', 'browser-a11y:a11y', 'browser-hostile:hostile', 'browser-lab-runs:lab-runs', 'browser-labs:labs',
  'browser-predictions:predictions', 'browser-scorm:scorm', 'browser-xapi:xapi', 'browser-watch:watch', 'pseudo-locale:pseudo-locale'];

export default {
  testDir: '.',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  // A test may wait for every training demo of a page (4 minutes each wait).
  timeout: 15 * 60 * 1000,
  reporter: [['list']],
  use: { browserName: 'chromium', launchOptions: chromiumLaunchOptions(), trace: 'off', screenshot: 'off', video: 'off' },
  projects: suites.map((s) => {
    const [name, file] = s.split(':');
    return { name, testMatch: `${file}.spec.mjs`, outputDir: `../../build/test-artifacts/playwright/${name}` };
  }),
};
