// lathe: the command line of the Lathe compiler, after tvmc. CLI11 parses
// the options each command declares (commands.h), prints --help and rejects
// what is not declared; every error is one line "lathe COMMAND: error: ..."
// and exit code 1 (2 for a missing or unknown command).
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "model_options.h"

namespace {

using lathe::cli::Command;

int usage_error(const CLI::App& lathe, const std::string& message) {
  std::cerr << "lathe: " << message << "\n\n" << lathe.help();
  return 2;
}

const Command* find_command(const std::vector<Command>& commands, const std::string& name) {
  for (const Command& c : commands)
    if (c.args->name() == name) return &c;
  return nullptr;
}

std::string unknown_command(const std::vector<Command>& commands, const std::string& name) {
  std::vector<std::string> names;
  for (const Command& c : commands) names.push_back(c.args->name());
  const std::string near = lathe::cli::nearest_name(name, names);
  return "unknown command '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?");
}

// CLI11's messages, in Lathe's words where CLI11's would puzzle a user.
std::string parse_error_message(const CLI::ParseError& e) {
  const std::string what = e.what();
  const std::string override_suffix = " was given a disallowed flag override";
  if (what.size() > override_suffix.size() &&
      what.compare(what.size() - override_suffix.size(), std::string::npos, override_suffix) == 0)
    return "option --" + what.substr(0, what.size() - override_suffix.size()) + " takes no value";
  return what;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App lathe{"Lathe: a deep-learning compiler in the tradition of Apache TVM.", "lathe"};
  lathe.set_version_flag("--version", "lathe " LATHE_VERSION);
  lathe.require_subcommand(0, 1);
  lathe.allow_extras();  // an unknown command is reported below, with a suggestion
  lathe.footer("Run 'lathe COMMAND --help' or 'lathe help COMMAND' for a command's options.");
  const std::vector<Command> commands = {
      lathe::cli::inspect_command(lathe),  lathe::cli::compile_command(lathe),
      lathe::cli::run_command(lathe),      lathe::cli::tasks_command(lathe),
      lathe::cli::schedule_command(lathe), lathe::cli::tune_command(lathe)};
  CLI::App* help = lathe.add_subcommand("help", "Show a command's options");
  std::string topic;
  help->add_option("COMMAND", topic, "the command");

  try {
    lathe.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return lathe.exit(e);  // --help or --version: printed on stdout, exit 0
  } catch (const CLI::ParseError& e) {
    std::string where = "lathe";
    for (const CLI::App* sub : lathe.get_subcommands()) where += " " + sub->get_name();
    std::cerr << where << ": error: " << parse_error_message(e) << "\n";
    return 1;
  }

  if (help->parsed()) {
    if (topic.empty()) {
      std::cout << lathe.help();
      return 0;
    }
    const Command* command = find_command(commands, topic);
    if (!command) return usage_error(lathe, unknown_command(commands, topic));
    std::cout << command->args->app().help("lathe");
    return 0;
  }
  for (const Command& command : commands) {
    if (!command.args->app().parsed()) continue;
    try {
      command.args->check_leftovers();
      lathe::cli::load_plugins(*command.args);
      return command.run(*command.args);
    } catch (const std::exception& e) {
      std::cerr << "lathe " << command.args->name() << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  const std::vector<std::string> left = lathe.remaining();
  if (left.empty()) return usage_error(lathe, "which command?");
  if (left.front().rfind("-", 0) == 0) return usage_error(lathe, "unknown option " + left.front());
  return usage_error(lathe, unknown_command(commands, left.front()));
}
