// The `lathe` subcommands. Each declares itself and its options on the
// command line's CLI11 app and hands back how to run once parsed; running
// returns the process exit code.
#pragma once

#include <functional>
#include <memory>

#include "args.h"

namespace lathe::cli {

struct Command {
  std::shared_ptr<Args> args;
  std::function<int(const Args&)> run;
};

Command inspect_command(CLI::App& lathe);
Command compile_command(CLI::App& lathe);
Command run_command(CLI::App& lathe);
Command tasks_command(CLI::App& lathe);
Command schedule_command(CLI::App& lathe);
Command tune_command(CLI::App& lathe);

}  // namespace lathe::cli
