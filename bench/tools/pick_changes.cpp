// Reads lines "GPU BATCH ROWS COLS ELEM_BYTES RAN" (scripts/pick-changes.sh writes them from
// benchmark runs: the technique `auto` ran in each cell) and prints the cells where this tree's
// auto_variant picks another technique (GPU h200: the HBM3e table, else the H100's).
#include <iostream>
#include <string>
#include <tmakit/tmakit.hpp>
int main() {
  std::string gpu, ran;
  long long batch = 0, rows = 0, cols = 0;
  int elem_bytes = 0, changed = 0, total = 0;
  while (std::cin >> gpu >> batch >> rows >> cols >> elem_bytes >> ran) {
    const double dram_gbps = gpu == "h200" ? 4800.0 : 3350.0;
    const std::string now = tmakit::auto_variant(rows, cols, elem_bytes, batch, dram_gbps);
    ++total;
    if (now != ran) {
      ++changed;
      std::cout << gpu << " " << batch << "x" << rows << "x" << cols << " " << elem_bytes
                << " B: ran " << ran << ", now " << now << "\n";
    }
  }
  std::cout << changed << " of " << total << " cells change pick\n";
  return 0;
}
