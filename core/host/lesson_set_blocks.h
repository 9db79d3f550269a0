// Internal to the lesson set (lesson_set.cpp, lesson_set_write.cpp): the pieces of a
// lesson both read it by.
#pragma once
#include <string>
#include <vector>

#include "icl/lesson.h"

namespace icl::lesson_set_detail {

std::string lowercase(std::string s);
std::vector<const DemoBlock*> demos_of(const Lesson& l);
std::vector<const CheckBlock*> checks_of(const Lesson& l);

}  // namespace icl::lesson_set_detail
