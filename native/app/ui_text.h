// Every label the app itself shows, in English and Korean, in one table: the UI reads
// them by name, and the font loader takes all of them so their glyphs are in the atlas.
#pragma once
#include <string>
#include <vector>

#include <icl/demo.h>

#define ICL_APP_LABELS(X)                                                                          \
    X(english, "English", "English")                                                               \
    X(korean, "한국어", "한국어")                                                                  \
    X(tagline, "why GPT can learn in context", "GPT는 왜 문맥 속에서 배우는가")                    \
    X(lessons, "Lessons", "강의")                                                                  \
    X(no_lessons, "No lessons found in this language.", "이 언어로 된 강의가 없습니다.")           \
    X(all_demos, "All demos", "모든 데모")                                                         \
    X(source_problems, "Lesson source problems:", "강의 원본 문제:")                               \
    X(demo, "Demo:", "데모:")                                                                      \
    X(paper, "Paper:", "논문:")                                                                    \
    X(parameters, "Parameters", "매개변수")                                                        \
    X(stop, "Stop", "정지")                                                                        \
    X(run, "Run", "실행")                                                                          \
    X(reset_parameters, "Reset parameters", "매개변수 초기화")                                     \
    X(running, "running", "실행 중")                                                               \
    X(done, "done", "완료")                                                                        \
    X(stopped, "stopped", "정지됨")                                                                \
    X(press_run, "Press Run to start training.", "실행을 누르면 학습이 시작됩니다.")               \
    X(check_heading, "Check your understanding", "이해 확인")                                      \
    X(true_label, "True", "참")                                                                    \
    X(false_label, "False", "거짓")                                                                \
    X(check_answer, "Check answer", "채점")                                                        \
    X(correct, "Correct.", "정답입니다.")                                                          \
    X(not_quite, "Not quite. The answer:", "아쉽습니다. 정답:")                                    \
    X(answered_right, "Answered correctly before.", "전에 맞힌 문제입니다.")                       \
    X(answered_wrong, "Answered before, not correctly.", "전에 틀린 문제입니다.")                  \
    X(choose_lesson, "Choose a lesson on the left.", "왼쪽에서 강의를 고르세요.")                  \
    X(choose_option, "Choose an option first.", "먼저 답을 고르세요.")                             \
    X(choose_true_false, "Choose true or false first.", "먼저 참/거짓을 고르세요.")                \
    X(type_answer, "Type an answer first.", "먼저 답을 입력하세요.")                               \
    X(run_demo_first, "Run the demo above to the end first: its result decides the answer. Demo:", \
      "먼저 위의 데모를 끝까지 실행하세요. 그 결과가 정답을 정합니다. 데모:")                      \
    X(review, "Review", "복습")                                                                    \
    X(review_due, "Review (%zu due)", "복습할 문제 (%zu개)")                                       \
    X(nothing_due, "Nothing is due for review now. Checks you miss come back in 10 minutes; right answers come back after 1, 3, 7, 16 and 35 days.", \
      "지금 복습할 문제가 없습니다. 틀린 문제는 10분 뒤에, 맞힌 문제는 1, 3, 7, 16, 35일 뒤에 다시 나옵니다.") \
    X(review_of, "Review: check", "복습: 문제")                                                    \
    X(next_check, "Next", "다음")                                                                  \
    X(from_lesson, "From the lesson:", "강의:")                                                    \
    X(progress_heading, "Your progress", "나의 진도")                                              \
    X(progress_file, "File", "파일")                                                               \
    X(import_progress, "Import", "가져오기")                                                       \
    X(export_progress, "Export", "내보내기")                                                       \
    X(export_csv, "Summary CSV", "요약 CSV")                                                       \
    X(no_translation, "This lesson has no version in this language yet:",                          \
      "이 강의는 아직 이 언어로 된 판이 없습니다:")

struct Label {
    const char* en;
    const char* ko;
};

namespace labels {
#define ICL_DEFINE_LABEL(name, en, ko) inline constexpr Label name{en, ko};
ICL_APP_LABELS(ICL_DEFINE_LABEL)
#undef ICL_DEFINE_LABEL
}  // namespace labels

inline const char* tr(icl::Lang lang, const Label& label) { return lang == icl::Lang::ko ? label.ko : label.en; }

// Every label in both languages (for the font atlas).
inline std::vector<std::string> all_label_texts() {
    std::vector<std::string> texts;
#define ICL_LABEL_TEXT(name, en, ko) texts.push_back(std::string(en) + ko);
    ICL_APP_LABELS(ICL_LABEL_TEXT)
#undef ICL_LABEL_TEXT
    return texts;
}
