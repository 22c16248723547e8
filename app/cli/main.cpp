// lathe: the command line of the Lathe compiler, after tvmc.
#include <cstring>
#include <exception>
#include <iostream>

#include "commands.h"

namespace {

void usage(std::ostream& os) {
  os << "usage: lathe <command> [options]\n\n"
        "commands:\n"
        "  inspect MODEL [--input-shapes \"name:[d,...]\"] [--print]\n"
        "      inputs, outputs, op histogram, parameters and MACs; --print adds the graph text\n"
        "  run MODEL --executor reference --inputs in.npz --output out.npz [--print-time]\n"
        "      runs the model on NumPy inputs and writes its outputs\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  try {
    if (command == "inspect") return lathe::cli::inspect_command(argc, argv);
    if (command == "run") return lathe::cli::run_command(argc, argv);
    std::cerr << "lathe: unknown command '" << command << "'\n";
    usage(std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "lathe " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}
