// The words of the page's controls, in the lesson's language.
const words = {
  en: {
    parameters: 'Parameters', run: 'Run', rerun: 'Run again', stop: 'Stop', reset: 'Reset',
    resetHint: 'Back to the lesson’s setup', running: 'Running', done: 'Done', stopped: 'Stopped',
    loading: 'Loading the demo engine…', pressRun: 'Press Run to train it here, in your browser.',
    gradingRun: 'Running the demo in the lesson’s setup to grade this…', queued: 'Starting…', failed: 'The demo stopped',
    exportCsv: 'CSV', exportJson: 'JSON', exportPng: 'PNG', exportLabel: 'Download the result',
    pngOf: (t) => `Download “${t}” as PNG`, progress: 'Progress', elapsed: (s) => `${s} s`,
    submit: 'Check answer', correct: 'Correct.', wrong: 'Not quite.', showAnswer: 'Show the answer',
    answeredBefore: 'You answered this correctly before.', triedBefore: 'Your last answer was not right yet.',
    chooseOne: 'Choose an answer first.', typeAnswer: 'Type an answer first.',
    trueLabel: 'True', falseLabel: 'False', yourAnswer: 'Your answer', numberHint: 'A number, e.g. 0.25',
    predictNote: (d) => `Graded with the result of the demo “${d}” in the lesson’s setup.`,
    urlBad: (d, m) => `The link’s parameters for “${d}” could not be used: ${m}. Showing the lesson’s setup.`,
    urlUnknown: (k) => `The link names demos this page does not have (${k}); they were ignored.`,
    progressReset: 'Your saved progress could not be read and was reset: the readable answers were kept, the damaged copy set aside.',
    storageOff: 'This browser does not let the page save progress; answers are kept until you leave.',
    engineFailed: 'The demo engine could not start', restarting: 'restarting it', noRestart: 'reload the page to try again',
    hoverHint: 'Hover or use the arrow keys for values', empty: 'No data', copyLink: 'Copy link',
    linkCopied: 'Link copied', value: 'value',
  },
  ko: {
    parameters: '매개변수', run: '실행', rerun: '다시 실행', stop: '멈춤', reset: '초기화',
    resetHint: '강의의 원래 설정으로', running: '실행 중', done: '완료', stopped: '멈춤',
    loading: '데모 엔진을 불러오는 중…', pressRun: '실행을 누르면 이 브라우저에서 학습합니다.',
    gradingRun: '채점을 위해 강의의 설정으로 데모를 실행하는 중…', queued: '시작하는 중…', failed: '데모가 멈췄습니다',
    exportCsv: 'CSV', exportJson: 'JSON', exportPng: 'PNG', exportLabel: '결과 내려받기',
    pngOf: (t) => `“${t}”를 PNG로 내려받기`, progress: '진행', elapsed: (s) => `${s}초`,
    submit: '답 확인', correct: '맞았습니다.', wrong: '아직 아닙니다.', showAnswer: '정답 보기',
    answeredBefore: '이전에 맞게 답했습니다.', triedBefore: '지난 답은 아직 맞지 않았습니다.',
    chooseOne: '먼저 답을 고르세요.', typeAnswer: '먼저 답을 입력하세요.',
    trueLabel: '참', falseLabel: '거짓', yourAnswer: '내 답', numberHint: '숫자, 예: 0.25',
    predictNote: (d) => `데모 “${d}”를 강의의 설정으로 실행한 결과로 채점합니다.`,
    urlBad: (d, m) => `링크의 “${d}” 매개변수를 쓸 수 없습니다: ${m}. 강의의 설정을 보여 줍니다.`,
    urlUnknown: (k) => `링크에 이 페이지에 없는 데모가 있습니다 (${k}). 무시했습니다.`,
    progressReset: '저장된 진도를 읽을 수 없어 초기화했습니다. 읽을 수 있는 답은 남기고, 손상된 사본은 따로 보관했습니다.',
    storageOff: '이 브라우저는 진도 저장을 허용하지 않습니다. 답은 페이지를 떠날 때까지만 남습니다.',
    engineFailed: '데모 엔진을 시작할 수 없습니다', restarting: '다시 시작합니다', noRestart: '페이지를 새로 고쳐 주세요',
    hoverHint: '마우스를 올리거나 화살표 키로 값을 봅니다', empty: '데이터 없음', copyLink: '링크 복사',
    linkCopied: '링크를 복사했습니다', value: '값',
  },
};

export function wordsFor(lang) {
  return words[lang] || words.en;
}
