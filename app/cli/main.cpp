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
        "  compile MODEL [--target \"llvm -mcpu=...\"] [--input-shapes S] [--tuning-records F]\n"
        "          --output module.tar\n"
        "      graph passes, fusion, one kernel per fused group; writes mod.so, mod.json and\n"
        "      mod.params in a tar that the runtime library loads without LLVM\n"
        "  run MODEL|module.tar [--inputs in.npz] [--output out.npz] [--print-time --repeat N\n"
        "          --number M] [--profile] [--executor compiled|reference] [--target T]\n"
        "      runs a package, or compiles a model in memory first (--executor reference runs\n"
        "      the plain reference kernels); prints TVM's time summary and per-kernel profile\n"
        "  tasks MODEL [--input-shapes S]\n"
        "      lists the fused groups the compiler makes kernels of: id, name, uses, FLOPs\n"
        "  schedule MODEL --task ID [--schedule FILE] [--emit tir|llvm|asm] [--passes]\n"
        "          [--measure] [--repeat N] [--cache-flush]\n"
        "      prints a task's default schedule, lowers a given one, emits its code and\n"
        "      measures it against the reference executor; --cache-flush evicts the\n"
        "      weights and outputs before each run, as tuning does\n"
        "  tune MODEL --output records.json [--trials N] [--time-budget 20m] [--tasks 0,3-5]\n"
        "          [--tuner xgb|ga|random|grid] [--enable-autoscheduler] [--early-stopping N]\n"
        "          [--prior-records F] [--task-scheduler gradient|round-robin] [--number N]\n"
        "          [--repeat N] [--min-repeat-ms MS] [--no-cache-flush] [--timeout S] "
        "[--print-tasks]\n"
        "          [--curve latency.csv]\n"
        "      searches schedules for the model's kernels in a worker process, appending each\n"
        "      measurement to the records `compile --tuning-records` applies; each cost\n"
        "      averages >= 10 ms of runs (--min-repeat-ms), weights flushed from cache first\n";
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
    if (command == "compile") return lathe::cli::compile_command(argc, argv);
    if (command == "tasks") return lathe::cli::tasks_command(argc, argv);
    if (command == "schedule") return lathe::cli::schedule_command(argc, argv);
    if (command == "tune") return lathe::cli::tune_command(argc, argv);
    std::cerr << "lathe: unknown command '" << command << "'\n";
    usage(std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "lathe " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}
