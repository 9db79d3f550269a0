// The scripted runs of the desktop app (--frames with --answer, --drag, --run-demos):
// what the tests drive and read back on stdout. main.cpp calls these each frame and,
// natively, once at the end.
#pragma once
#include "lab.h"

// --drag: drives the mouse over a frame each, after the backend read the real one.
void scripted_drag(Lab& lab);
// Scripted answers: at once, or for a predict check once its demo has finished.
void submit_pending_answers(Lab& lab);
#ifndef __EMSCRIPTEN__
// The demos' states, first scalars and tallest bars, the lesson's matrices as laid out,
// and the frame times, for the tests to compare.
void print_summary(const Lab& lab);
#endif
