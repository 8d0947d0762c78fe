// README.md, "The API in 30 lines": the statements are main's body after ../readme_api/context.hpp, which
// declares what they leave to the application. Compiled here; install.readme_api builds the same from the
// README with CMake and pkg-config and runs it (on one rank: its context makes the rank its own neighbour).
#include "../readme_api/context.hpp"

int main(int argc, char** argv) try {
  // @example@
  return check_after_snippet();
} catch (const proxy::SettingsError& refused) {
  return refused.exit_status();
}
