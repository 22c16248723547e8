// The `lathe` subcommands; each returns the process exit code.
#pragma once

namespace lathe::cli {

int inspect_command(int argc, char** argv);
int run_command(int argc, char** argv);
int compile_command(int argc, char** argv);
int tasks_command(int argc, char** argv);
int schedule_command(int argc, char** argv);
int tune_command(int argc, char** argv);

}  // namespace lathe::cli
