// The teachers' commands of `icl`: `icl lessons package` (a SCORM package of the built
// site) and `icl class report` (a class's answers as one HTML page).
#pragma once

int cmd_lessons_package(int argc, char** argv);
int cmd_class(int argc, char** argv);
