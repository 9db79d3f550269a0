// Reads tests/golden/theory_baselines.txt (written by tests/golden/make_theory_fixture.py
// with numpy): one array a line, `name rows cols values...`, 17 significant digits.
#pragma once
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "icl/linalg.h"

namespace icl::test {

struct FixtureArray {
    int rows = 0, cols = 0;
    std::vector<double> v;
    Matrix as_matrix() const {
        Matrix m = matrix(rows, cols);
        for (size_t i = 0; i < v.size(); ++i) m.data()[i] = (float)v[i];
        return m;
    }
    std::vector<float> as_floats() const { return std::vector<float>(v.begin(), v.end()); }
};

// Empty if the file is missing or a line is malformed.
inline std::map<std::string, FixtureArray> read_theory_fixture() {
    std::ifstream f(std::string(ICL_TEST_DATA_DIR) + "/golden/theory_baselines.txt");
    std::map<std::string, FixtureArray> out;
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        std::string name;
        FixtureArray a;
        if (!(in >> name >> a.rows >> a.cols)) return {};
        a.v.resize((size_t)a.rows * a.cols);
        for (double& x : a.v)
            if (!(in >> x)) return {};
        out[name] = a;
    }
    return out;
}

}  // namespace icl::test
