// MPI_COMM_WORLD's error handler, installed by proxy::Environment (after MPI_Init, so that the communicators a
// program makes from the world afterwards inherit it) and by the first ProxyThread, where it is still MPI's
// default. An MPI error raised on a thread that runs the progress loop, or inside a MpiErrorsReturnHere scope
// (proxy/error.hpp), goes back to the call as its return code; any other ends the job with one line of ours.
#pragma once

namespace proxy {

// Once per process; leaves a handler the program has set in place. Call after MPI_Init.
void install_world_error_handler();

}  // namespace proxy
