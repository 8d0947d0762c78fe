#!/usr/bin/env python3
"""with_closed_pipe.py COMMAND...: runs COMMAND with its standard output a pipe whose reading end is already
closed (a reader that has gone, as `| head` leaves one), and exits with its status (128 + N for signal N)."""
import os
import subprocess
import sys


def main():
    """Close the pipe's reading end first, so that every write fails, whatever the timing."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    status = subprocess.call(sys.argv[1:], stdout=write_end)  # SIGPIPE restored to its default in the child
    sys.exit(128 - status if status < 0 else status)


if __name__ == "__main__":
    main()
