#include "apps/agreed_parse.hpp"

#include <sstream>

#include <proxy/harness/timed_wait.hpp>

namespace apps {

void agree_on_usage_error(const std::optional<std::string>& my_error, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = my_error ? rank : size, first = size;
  // Timed (PROXY_WAIT_TIMEOUT): a rank that never gets here (it died, or was launched with another
  // program) ends the job with a diagnostic instead of leaving the others waiting.
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request);
  proxy::harness::wait_collective(request, "the options check");
  if (first == size) return;
  std::string message = rank == first ? *my_error : std::string();
  int length = static_cast<int>(message.size());
  MPI_Ibcast(&length, 1, MPI_INT, first, comm, &request);
  proxy::harness::wait_collective(request, "the options check");
  message.resize(static_cast<std::size_t>(length));
  MPI_Ibcast(message.data(), length, MPI_CHAR, first, comm, &request);
  proxy::harness::wait_collective(request, "the options check");
  throw UsageError(first == 0 ? message : message + " (on rank " + std::to_string(first) + ")");
}

void agree_on_options(const std::string& my_values, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int length = static_cast<int>(my_values.size());
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&length, 1, MPI_INT, 0, comm, &request);
  proxy::harness::wait_collective(request, "the options check");
  std::string first = rank == 0 ? my_values : std::string(static_cast<std::size_t>(length), '\0');
  MPI_Ibcast(first.data(), length, MPI_CHAR, 0, comm, &request);
  proxy::harness::wait_collective(request, "the options check");
  std::optional<std::string> error;
  if (first != my_values) {
    std::istringstream theirs(first), mine(my_values);
    std::string their_line, my_line;
    while (true) {
      const bool more_theirs = static_cast<bool>(std::getline(theirs, their_line));
      const bool more_mine = static_cast<bool>(std::getline(mine, my_line));
      if (more_theirs && more_mine && their_line == my_line) continue;
      if (more_theirs && more_mine && my_line.starts_with(Options::kProgramLine)) {
        error = my_line.substr(Options::kProgramLine.size()) + " here, " +
                their_line.substr(Options::kProgramLine.size()) +
                " on rank 0: every rank of a run runs the same program";
        break;
      }
      error = (more_mine ? my_line : std::string("fewer options")) + " here, " +
              (more_theirs ? their_line : std::string("fewer options")) +
              " on rank 0: every rank of a run needs the same options";
      break;
    }
  }
  agree_on_usage_error(error, comm);
}

bool answer_show_config(const Options& options, int rank) {
  if (!options.show_config_requested() && !options.verbose()) return false;
  if (rank == 0) {
    std::fputs(options.show_config().c_str(), stdout);
    std::fflush(stdout);
  }
  return options.show_config_requested();
}

}  // namespace apps
