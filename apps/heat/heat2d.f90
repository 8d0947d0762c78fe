! heat2d-fortran: heat2d (heat2d.cpp) in Fortran, through `use proxy`: the same explicit 2-D heat equation,
! rows split over the ranks, the halo rows moved by a plan per buffer while OpenMP threads update the
! interior rows. --verify recomputes the whole grid serially on every rank, compares bit for bit, and prints
! the checksum heat2d-c prints (tests/c compare it with the C++ heat2d's rows).
!   usage: mpiexec -n 2 heat2d-fortran [--nx 256] [--ny 256] [--iters 200] [--verify] [--bad-peer] [--verbose]
! The drivers' vocabulary: --help, --version, --show-config (every setting with its source, from
! proxy_settings_show for the PROXY_* ones) and --verbose (also PROXY_VERBOSE=1: the same table first).
! --bad-peer adds a transfer to a rank outside the communicator: the commit's one-line refusal, exit 1.
! Every rank's command line is agreed with rank 0's before the run (agree), through two plans; a grid the node
! cannot hold is refused before anything is allocated (check_size), as the C++ heat2d refuses it.
! Exit status: 0, 1 for a run-time failure, 2 for a bad argument, 3 when --verify finds a difference.
module heat2d_problem
  use, intrinsic :: iso_fortran_env, only: real64, int64, error_unit
  implicit none
  real(real64), parameter :: rate = 0.2_real64  ! dt*alpha/h^2, as heat2d_problem.hpp
contains
  ! heat2d_problem.cpp's initial values, row split and row update, operation for operation.
  pure real(real64) function initial(gx, gy, nx, ny)
    integer, intent(in) :: gx, gy, nx, ny
    if (gx == 0 .or. gy == 0 .or. gx == nx - 1 .or. gy == ny - 1) then
      initial = 0.0_real64
    else
      initial = sin(0.1_real64 * gx) * cos(0.07_real64 * gy)
    end if
  end function

  pure integer function rows_of(rank, ranks, ny)
    integer, intent(in) :: rank, ranks, ny
    rows_of = ny / ranks + merge(1, 0, rank < mod(ny, ranks))
  end function

  pure integer function first_row_of(rank, ranks, ny)
    integer, intent(in) :: rank, ranks, ny
    first_row_of = rank * (ny / ranks) + min(rank, mod(ny, ranks))
  end function

  subroutine update_row(up, row, down, out, nx, fixed)
    integer, intent(in) :: nx
    real(real64), intent(in) :: up(0:nx - 1), row(0:nx - 1), down(0:nx - 1)
    real(real64), intent(out) :: out(0:nx - 1)
    logical, intent(in) :: fixed
    integer :: x
    out(0) = row(0)
    out(nx - 1) = row(nx - 1)
    do x = 1, nx - 2
      if (fixed) then
        out(x) = row(x)
      else
        out(x) = row(x) + rate * (up(x) + down(x) + row(x - 1) + row(x + 1) - 4.0_real64 * row(x))
      end if
    end do
  end subroutine

  ! One value's share of the checksum: its bits rotated left by its global index modulo 64.
  pure integer(int64) function checksum_term(value, index)
    real(real64), intent(in) :: value
    integer(int64), intent(in) :: index
    checksum_term = ishftc(transfer(value, 0_int64), int(mod(index, 64_int64)))
  end function
end module heat2d_problem

program heat2d
  use, intrinsic :: iso_fortran_env, only: real64, int64, error_unit
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_ptrdiff_t, c_char, c_loc, c_ptr
  use mpi_f08, only: MPI_COMM_WORLD, MPI_PROC_NULL, MPI_DOUBLE_PRECISION, MPI_INTEGER, MPI_INTEGER8, MPI_MAX, MPI_MIN, &
                     MPI_BXOR
  use proxy
  use heat2d_problem
  implicit none
  integer, parameter :: exit_success = 0, exit_run_failure = 1, exit_usage = 2, exit_verification_failed = 3
  interface
    ! POSIX write(2): gfortran's own output unit drops a failed write (a full disk, /dev/full) without a word.
    integer(c_ptrdiff_t) function c_write(fd, buffer, count) bind(C, name='write')
      import :: c_int, c_ptr, c_size_t, c_ptrdiff_t
      integer(c_int), value :: fd
      type(c_ptr), value :: buffer
      integer(c_size_t), value :: count
    end function
  end interface
  logical :: output_lost = .false.
  character(512) :: line
  type(proxy_environment) :: env
  type(proxy_placement) :: placement
  type(proxy_thread) :: thread
  type(proxy_plan_spec) :: spec
  type(proxy_plan) :: halo(0:1)
  type(proxy_ticket) :: ticket
  real(real64), allocatable, asynchronous :: u(:, :, :)
  real(real64), allocatable :: g(:, :, :)
  real(real64), asynchronous :: difference(1), max_difference(1)     ! plan buffers are arrays
  integer(int64), asynchronous :: checksum(1), global_checksum(1)
  integer :: nx = 256, ny = 256, steps = 200, rank, size, rows, first, up, down, b, r, x, y, step, last, status, outcome
  logical :: verify_requested = .false., bad_peer = .false., verbose = .false., show_config = .false.
  logical :: given_option(6) = .false., verbose_from_environment = .false.
  character(:), allocatable :: where, strategy, answer
  character(16) :: name, hex

  status = proxy_environment_create(env)
  if (status == PROXY_ERROR_SETTINGS) stop exit_usage, quiet=.true.  ! its line was written already
  if (status /= PROXY_SUCCESS) call fail(proxy_last_error())
  status = proxy_environment_rank(env, rank)
  status = proxy_environment_size(env, size)
  outcome = parse()
  ! The checks (the parse agreed between ranks, the memory) on an unplaced proxy, the run on a placed one: the
  ! placement says when the proxy shares a core ("proxy: notice: ..."), which does not belong before --help,
  ! --version, --show-config or a refusal (the C++ drivers place their proxy after their checks).
  call check(proxy_thread_create(MPI_COMM_WORLD, thread))
  outcome = agree(outcome)
  if (outcome < 0) outcome = check_size()
  if (outcome < 0 .and. show_config) then  ! every check of a run has passed: the configuration, and exit
    if (rank == 0) call say(answer)
    outcome = exit_success
  end if
  if (outcome < 0 .and. verbose .and. rank == 0) call say(configuration())  ! --verbose: the configuration first
  if (outcome >= 0) then  ! --help, --version, a usage error or a grid too big: its exit status
    call check(proxy_thread_free(thread))
    call check(proxy_placement_free(placement))
    status = proxy_environment_free(env)
    call finish(outcome)
  end if
  call check(proxy_thread_free(thread))
  call check(proxy_environment_placement(env, 0, .true., placement))
  call check(proxy_thread_create_placed(MPI_COMM_WORLD, placement, thread))
  call check(proxy_environment_bind_openmp_threads(env, placement))

  rows = rows_of(rank, size, ny)
  first = first_row_of(rank, size, ny)
  allocate(u(0:nx - 1, 0:rows + 1, 0:1))
  u = 0.0_real64
  do r = 1, rows
    do x = 0, nx - 1
      u(x, r, 0) = initial(x, first + r - 1, nx, ny)
    end do
  end do

  if (rank == 0) then
    call check(proxy_placement_describe(placement, where))
    call check(proxy_thread_progress_strategy(thread, strategy))
    write(line, '(a,i0,a,i0,a,i0,a,i0,a)') 'heat2d-fortran: ', nx, 'x', ny, ', ', steps, &
        ' step' // plural(steps) // ', ', size, ' rank' // plural(size) // '; rank 0 ' // where // '; progress ' // &
        strategy
    call say(trim(line))
  end if

  ! The halo of each buffer, as heat2d_problem.cpp's commit_halo: edge rows out, ghost rows in.
  up = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  down = merge(rank + 1, MPI_PROC_NULL, rank < size - 1)
  do b = 0, 1
    write(name, '(a,i0)') 'halo-', b
    call check(proxy_plan_spec_create(trim(name), spec))
    call check(proxy_plan_spec_send(spec, up, 0, u(:, 1, b), nx, MPI_DOUBLE_PRECISION))
    call check(proxy_plan_spec_recv(spec, down, 0, u(:, rows + 1, b), nx, MPI_DOUBLE_PRECISION))
    call check(proxy_plan_spec_send(spec, down, 1, u(:, rows, b), nx, MPI_DOUBLE_PRECISION))
    call check(proxy_plan_spec_recv(spec, up, 1, u(:, 0, b), nx, MPI_DOUBLE_PRECISION))
    if (bad_peer) call check(proxy_plan_spec_send(spec, size, 2, u(:, 1, b), nx, MPI_DOUBLE_PRECISION))
    status = proxy_commit(thread, spec, halo(b))
    if (status /= PROXY_SUCCESS) then  ! --bad-peer: every rank refuses the same plan; rank 0 says so
      if (rank == 0) write(error_unit, '(a)') 'heat2d-fortran: error: ' // proxy_last_error()
      status = proxy_plan_spec_free(spec)
      status = proxy_thread_free(thread)
      status = proxy_placement_free(placement)
      status = proxy_environment_free(env)
      stop exit_run_failure, quiet=.true.
    end if
    call check(proxy_plan_spec_free(spec))
  end do

  do step = 0, steps - 1
    b = mod(step, 2)
    call check_or_abort(proxy_start(thread, halo(b), ticket))
    !$omp parallel do schedule(static)
    do r = 2, rows - 1
      call update_row(u(:, r - 1, b), u(:, r, b), u(:, r + 1, b), u(:, r, 1 - b), nx, fixed(r))
      if (mod(r, 16) == 0) status = proxy_progress_point(thread)  ! moves the halo along (cooperative)
    end do
    !$omp end parallel do
    call check_or_abort(proxy_wait(thread, ticket))
    call update_row(u(:, 0, b), u(:, 1, b), u(:, 2, b), u(:, 1, 1 - b), nx, fixed(1))
    if (rows > 1) call update_row(u(:, rows - 1, b), u(:, rows, b), u(:, rows + 1, b), u(:, rows, 1 - b), nx, &
                                  fixed(rows))
  end do

  status = exit_success
  if (verify_requested) then
    ! The serial solver, whole, on every rank (heat2d_problem.cpp's max_difference_from_serial).
    allocate(g(0:nx - 1, 0:ny - 1, 0:1))
    do y = 0, ny - 1
      do x = 0, nx - 1
        g(x, y, 0) = initial(x, y, nx, ny)
      end do
    end do
    do step = 0, steps - 1
      b = mod(step, 2)
      do y = 0, ny - 1
        call update_row(g(:, max(y - 1, 0), b), g(:, y, b), g(:, min(y + 1, ny - 1), b), g(:, y, 1 - b), nx, &
                        y == 0 .or. y == ny - 1)
      end do
    end do
    last = mod(steps, 2)
    difference(1) = 0.0_real64
    checksum(1) = 0_int64
    do r = 1, rows
      do x = 0, nx - 1
        difference(1) = max(difference(1), abs(u(x, r, last) - g(x, first + r - 1, last)))
        checksum(1) = ieor(checksum(1), checksum_term(u(x, r, last), int(first + r - 1, int64) * nx + x))
      end do
    end do
    ! The reductions as a plan of two collective elements, started once.
    call check_or_abort(proxy_plan_spec_create('verify', spec))
    call check_or_abort(proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, difference, max_difference, 1, &
                                                  MPI_DOUBLE_PRECISION, MPI_MAX))
    call check_or_abort(proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, checksum, global_checksum, 1, MPI_INTEGER8, &
                                                  MPI_BXOR))
    call run_plan_once()
    if (rank == 0) then
      write(hex, '(z16.16)') global_checksum(1)
      call say('heat2d-fortran: checksum ' // lowercase(hex))
      if (max_difference(1) == 0.0_real64) then  ! "0", as heat2d's %g prints it
        call say('heat2d-fortran: verify: max difference from the serial solver 0')
      else
        write(line, '(a,es10.3)') 'heat2d-fortran: verify: max difference from the serial solver ', max_difference(1)
        call say(trim(line))
      end if
    end if
    if (max_difference(1) /= 0.0_real64) status = exit_verification_failed
  end if

  call check(proxy_plan_free(halo(0)))
  call check(proxy_plan_free(halo(1)))
  call check(proxy_thread_free(thread))
  call check(proxy_placement_free(placement))
  call check(proxy_environment_free(env))
  call finish(status)

contains

  ! Letters in lower case: hexadecimal digits as C's %x writes them, a size's unit.
  pure function lowercase(text) result(lower)
    character(*), intent(in) :: text
    character(len(text)) :: lower
    integer :: i
    lower = text
    do i = 1, len(text)
      if (text(i:i) >= 'A' .and. text(i:i) <= 'Z') lower(i:i) = achar(iachar(text(i:i)) + 32)
    end do
  end function

  ! The global boundary rows keep their values.
  logical function fixed(r)
    integer, intent(in) :: r
    fixed = first + r - 1 == 0 .or. first + r - 1 == ny - 1
  end function

  ! One line to standard output, written at once with write(2); a failed write is remembered for finish.
  subroutine say(text)
    character(*), intent(in) :: text
    character(len=len(text) + 1, kind=c_char), target :: whole
    whole = text // new_line('a')
    if (c_write(1_c_int, c_loc(whole), int(len(whole), c_size_t)) /= len(whole)) output_lost = .true.
  end subroutine

  ! The end: output that could not be written fails the program, as in every program
  ! (apps/program_exit.hpp); else exit `code`.
  subroutine finish(code)
    integer, intent(in) :: code
    if (output_lost) then
      write(error_unit, '(a)') 'heat2d-fortran: error: cannot write to standard output'
      stop exit_run_failure, quiet=.true.
    end if
    stop code, quiet=.true.
  end subroutine

  ! A set-up failure: one line, exit 1 (before the proxy runs, or the same on every rank).
  subroutine fail(what)
    character(*), intent(in) :: what
    write(error_unit, '(a)') 'heat2d-fortran: error: ' // what
    stop exit_run_failure, quiet=.true.
  end subroutine

  subroutine check(call_status)
    integer, intent(in) :: call_status
    if (call_status /= PROXY_SUCCESS) call proxy_abort('heat2d-fortran: error: ' // proxy_last_error(), exit_run_failure)
  end subroutine

  ! A failure the other ranks cannot know about: end the whole job now, while the proxy still runs.
  subroutine check_or_abort(call_status)
    integer, intent(in) :: call_status
    character(16) :: which
    if (call_status == PROXY_SUCCESS) return
    write(which, '(i0)') rank
    call proxy_abort('heat2d-fortran: error: rank ' // trim(which) // ': ' // proxy_last_error(), exit_run_failure)
  end subroutine

  ! Before allocating, as the C++ heat2d checks (heat2d_problem.cpp): both buffers of this rank's rows with their
  ! ghost rows, and the serial grids of --verify, against what the node can give each rank (proxy_check_memory,
  ! collective). In real64: nx * ny passes the range of integer. Returns -1 to run, or exit_usage when it does
  ! not fit (rank 0 writes the line, "heat2d-fortran: error: --nx 100000 --ny 100000 needs 149.0 GiB per rank ...").
  integer function check_size() result(outcome)
    real(real64) :: bytes
    integer :: call_status
    bytes = 8.0_real64 * 2.0_real64 * (rows_of(rank, size, ny) + 2) * real(nx, real64)
    if (verify_requested) bytes = bytes + 8.0_real64 * 2.0_real64 * real(nx, real64) * real(ny, real64)
    write(line, '(a,i0,a,i0)') '--nx ', nx, ' --ny ', ny
    call_status = proxy_check_memory(thread, env, trim(line), bytes)
    outcome = -1
    if (call_status == PROXY_SUCCESS) return
    if (call_status /= PROXY_ERROR_SETTINGS) call check_or_abort(call_status)
    if (rank == 0) write(error_unit, '(a)') 'heat2d-fortran: error: ' // proxy_last_error()
    outcome = exit_usage
  end function

  ! Runs the plan in spec once (committed, started, waited, freed) and frees spec; a failure ends the job.
  subroutine run_plan_once()
    type(proxy_plan) :: plan
    call check_or_abort(proxy_commit(thread, spec, plan))
    call check_or_abort(proxy_plan_spec_free(spec))
    call check_or_abort(proxy_start(thread, plan, ticket))
    call check_or_abort(proxy_wait(thread, ticket))
    call check_or_abort(proxy_plan_free(plan))
  end subroutine

  ! Every rank's parse agreed, as the C++ drivers agree theirs (apps/agreed_parse.hpp) and heat2d-c does: rank
  ! 0's values are broadcast, then the lowest rank with a usage error or other values than rank 0's writes its
  ! line and every rank exits 2 (an MPMD launch can give ranks different command lines). Both steps are plans,
  ! waited with the wait timeout: a rank that never takes part ends the job with the plan's line. Returns the
  ! outcome every rank takes: -1 to run, 0 after --help or --version (rank 0 writes the answer), exit_usage.
  integer function agree(parsed) result(agreed)
    integer, intent(in) :: parsed
    integer, parameter :: count = 6  ! stopped by --help or --version, --nx, --ny, --iters, --verify, --bad-peer
    integer, asynchronous :: mine(count), theirs(count), problem_rank(1), first_problem(1)
    character(:), allocatable :: message
    character(64) :: here, there
    integer :: which
    mine = [merge(1, 0, parsed == exit_success), nx, ny, steps, merge(1, 0, verify_requested), merge(1, 0, bad_peer)]
    theirs = mine
    call check_or_abort(proxy_plan_spec_create('options', spec))
    call check_or_abort(proxy_plan_spec_broadcast(spec, MPI_COMM_WORLD, 0, theirs, count, MPI_INTEGER))
    call run_plan_once()
    message = ''
    if (parsed == exit_usage) then
      message = answer
    else
      do which = 2, count
        here = described(mine, which)
        there = described(theirs, which)
        if (here /= there) then
          message = trim(here) // ' here, ' // trim(there) // ' on rank 0: every rank of a run needs the same options'
          exit
        end if
      end do
    end if
    problem_rank(1) = merge(rank, size, len_trim(message) > 0)
    call check_or_abort(proxy_plan_spec_create('options-agreed', spec))
    call check_or_abort(proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, problem_rank, first_problem, 1, MPI_INTEGER, &
                                                  MPI_MIN))
    call run_plan_once()
    if (first_problem(1) < size) then
      if (rank == first_problem(1)) then
        if (rank == 0) then
          write(error_unit, '(a)') 'heat2d-fortran: error: ' // trim(message)
        else
          write(error_unit, '(a,i0,a)') 'heat2d-fortran: error: ' // trim(message) // ' (on rank ', rank, ')'
        end if
      end if
      agreed = exit_usage
      return
    end if
    ! --show-config answers once every check of a run has passed (check_size's too): in the main program.
    if (parsed == exit_success .and. show_config) then
      agreed = -1
      return
    end if
    if (parsed == exit_success .and. rank == 0) call say(answer)
    agreed = parsed
  end function

  ! One agreed value as the C++ drivers name it ("--iters 60", "--verify given"); "--help or --version" when
  ! that stopped the parse.
  function described(values, which) result(text)
    integer, intent(in) :: values(:), which
    character(64) :: text
    character(*), parameter :: names(6) = [character(10) :: '', '--nx', '--ny', '--iters', '--verify', '--bad-peer']
    if (values(1) == 1) then
      text = '--help, --version or --show-config'
    else if (which >= 5) then
      text = trim(names(which)) // merge(' given    ', ' not given', values(which) == 1)
    else
      write(text, '(a,1x,i0)') trim(names(which)), values(which)
    end if
  end function

  ! Parses the command line as the C++ drivers parse theirs (apps/common/src/options.cpp, through CLI11) and
  ! heat2d-c does, in their words and with their precedence when an argument is wrong in several ways: first, word
  ! by word, an option given twice, a flag given a value, an empty value after '='; then a missing value; then each
  ! value against its bounds, --nx, --ny, --iters; then --help (or -h); then the first argument that is no option
  ! ("unknown option '--bogus' (see --help)", "unexpected argument 'extra' (options start with --; see --help)");
  ! then --version. After "--" every word is an argument. Returns -1 to run, 0 when --help or --version stopped the
  ! parse (answer holds the text), exit_usage for a bad argument (answer holds the line). Nothing is written before
  ! every rank agrees.
  integer function parse() result(outcome)
    ! The options as the C++ heat2d declares them (heat2d_problem.cpp), and --bad-peer; the first three take a
    ! value (the sizes --nx and --ny with K, M, G suffixes, the count --iters without), --version and --help are
    ! the built-in flags.
    character(*), parameter :: names(9) = [character(13) :: '--nx', '--ny', '--iters', '--verify', '--bad-peer', &
                                           '--verbose', '--version', '--help', '--show-config']
    character(*), parameter :: value_names(3) = [character(2) :: 'NX', 'NY', 'K']
    logical, parameter :: suffixes(3) = [.true., .true., .false.]
    integer(int64), parameter :: most(3) = [2_int64**24, 2_int64**24, 2_int64**30]
    character(:), allocatable :: arg, option, text
    integer :: i, k, equals, missing, first_argument, at(3), from(3)
    logical :: given(6), help, version, separated
    character(:), allocatable :: verbose_variable
    integer :: length, verbose_status
    integer(int64) :: least(3), value
    given = .false.
    help = .false.
    version = .false.
    separated = .false.
    missing = 0
    first_argument = 0  ! the first word that is no option of this program
    at = 0              ! each value's word and where in it the value starts (from)
    least = [3_int64, int(size, int64), 1_int64]
    outcome = exit_usage  ! until the parse ends well
    i = 0
    do while (i < command_argument_count())
      i = i + 1
      arg = argument(i)
      if (.not. (starts_with(arg, '--') .and. len(arg) > 2)) then
        if (.not. separated .and. starts_with(arg, '-h=')) then
          answer = "option -h takes no value, got '" // arg(4:) // "'"
          return
        end if
        if (.not. separated .and. same(arg, '-h')) then
          help = .true.
          cycle
        end if
        if (first_argument == 0) first_argument = i
        if (same(arg, '--')) separated = .true.
        cycle
      end if
      equals = index(arg, '=')
      option = arg
      if (equals > 0) option = arg(:equals - 1)
      k = 1
      do while (k <= 9)
        if (same(trim(names(k)), option)) exit
        k = k + 1
      end do
      if (k <= 6) then
        if (given(k)) then
          answer = 'option ' // trim(names(k)) // ' given twice'
          return
        end if
        given(k) = .true.
      end if
      if (k >= 4 .and. k <= 9 .and. equals > 0) then
        answer = 'option ' // trim(names(k)) // " takes no value, got '" // arg(equals + 1:) // "'"
        return
      end if
      if (k <= 3) then
        if (equals == len(arg)) then
          answer = 'option ' // trim(names(k)) // " needs a value after '=' (" // trim(value_names(k)) // ')'
          return
        end if
        ! The next word is the value, whatever it looks like; after "--" it is an argument as the option is.
        if (equals == 0 .and. i == command_argument_count()) then
          if (.not. separated) missing = k
          cycle
        end if
        if (equals == 0) i = i + 1
        if (.not. separated) then
          at(k) = i
          from(k) = merge(equals + 1, 1, equals > 0)
        end if
        cycle
      end if
      if (separated .or. k > 9) then
        if (first_argument == 0) first_argument = i
        cycle
      end if
      select case (k)
      case (4)
        verify_requested = .true.
      case (5)
        bad_peer = .true.
      case (6)
        verbose = .true.
      case (7)
        version = .true.
      case (8)
        help = .true.
      case (9)
        show_config = .true.
      end select
    end do
    if (missing > 0) then
      answer = 'option ' // trim(names(missing)) // ' needs a value (' // trim(value_names(missing)) // ')'
      return
    end if
    do k = 1, 3
      if (at(k) == 0) cycle
      arg = argument(at(k))
      text = arg(from(k):)
      if (.not. checked_integer(trim(names(k)), text, suffixes(k), least(k), most(k), value)) return
      select case (k)
      case (1)
        nx = int(value)
      case (2)
        ny = int(value)
      case (3)
        steps = int(value)
      end select
    end do
    given_option = given
    ! --verbose's environment name, 0 or 1 (the C++ drivers' check, in their words).
    call get_environment_variable('PROXY_VERBOSE', length=length, status=verbose_status)
    if (verbose_status == 0) then
      allocate(character(length) :: verbose_variable)
      call get_environment_variable('PROXY_VERBOSE', verbose_variable)
      if (.not. (same(verbose_variable, '0') .or. same(verbose_variable, '1'))) then
        answer = "PROXY_VERBOSE='" // verbose_variable // "' is not an integer from 0 to 1"
        return
      end if
      if (.not. verbose .and. same(verbose_variable, '1')) then
        verbose = .true.
        verbose_from_environment = .true.
      end if
    end if
    if (help) then
      answer = help_text()
      show_config = .false.  ! --help answers, whatever else was given
      outcome = exit_success
      return
    end if
    if (first_argument > 0) then
      arg = argument(first_argument)
      if (starts_with(arg, '--') .and. len(arg) > 2) then
        equals = index(arg, '=')
        if (equals > 0) arg = arg(:equals - 1)
        answer = "unknown option '" // arg // "' (see --help)"
      else
        answer = "unexpected argument '" // arg // "' (options start with --; see --help)"
      end if
      return
    end if
    if (version) then
      answer = 'heat2d-fortran (proxy) ' // proxy_version()
      show_config = .false.
      outcome = exit_success
      return
    end if
    if (show_config) then
      answer = configuration()
      outcome = exit_success
      return
    end if
    outcome = -1
  end function

  ! --help in the C++ drivers' layout (apps/common/src/options.cpp): usage, Options, the PROXY_* table.
  function help_text() result(text)
    character(:), allocatable :: text, table
    character, parameter :: nl = new_line('a')
    integer :: call_status
    call_status = proxy_settings_help(table)
    text = 'usage: heat2d-fortran [options]' // nl // &
           'heat2d in Fortran through `use proxy`: the explicit 2-D heat equation, rows split over the ranks' // nl // &
           'Options:' // nl // &
           '  -h, --help           print this help and exit' // nl // &
           '  --nx NX              grid points per row, at least 3 (K suffix allowed) (default: 256)' // nl // &
           '  --ny NY              rows, at least the number of ranks (K suffix allowed) (default: 256)' // nl // &
           '  --iters K            time steps, at least 1 (default: 200)' // nl // &
           '  --verify             recompute the whole grid serially on every rank and compare bit for bit; ' // &
           'exit 3 if not' // nl // &
           "  --bad-peer           add a transfer to a rank outside the communicator: the commit's refusal, " // &
           'exit 1' // nl // &
           '  --verbose            print the effective configuration first (also PROXY_VERBOSE=1)' // nl // &
           '  --version            print "heat2d-fortran (proxy) ' // proxy_version() // '" and exit' // nl // &
           '  --show-config        print every effective setting (options, PROXY_*, OMP_*) with its source ' // &
           'and exit' // nl // nl // table
    if (len(text) > 0) then
      if (text(len(text):) == nl) text = text(:len(text) - 1)  ! written with its own newline
    end if
  end function

  ! --show-config's table (and --verbose's): each option with its value and source, then the PROXY_* and OMP_*
  ! settings (proxy_settings_show), as the C++ drivers print theirs.
  function configuration() result(text)
    character(:), allocatable :: text, table
    character, parameter :: nl = new_line('a')
    integer :: call_status
    call_status = proxy_settings_show(table)
    text = 'heat2d-fortran: effective configuration (setting, value, source)' // nl // &
           setting_row('--nx', decimal_text(nx), source(1)) // setting_row('--ny', decimal_text(ny), source(2)) // &
           setting_row('--iters', decimal_text(steps), source(3)) // &
           setting_row('--verify', flag_text(verify_requested), source(4)) // &
           setting_row('--bad-peer', flag_text(bad_peer), source(5))
    if (verbose_from_environment) then
      text = text // setting_row('--verbose', 'true', 'environment (PROXY_VERBOSE)')
    else
      text = text // setting_row('--verbose', flag_text(verbose), source(6))
    end if
    text = text // table
    if (len(text) > 0) then
      if (text(len(text):) == nl) text = text(:len(text) - 1)  ! written with its own newline
    end if
  end function

  ! The source of option k's value in --show-config: "option" when it was on the command line, else "default".
  function source(k) result(word)
    integer, intent(in) :: k
    character(:), allocatable :: word
    word = trim(merge('option ', 'default', given_option(k)))
  end function

  ! One line of --show-config's table, "  SETTING  VALUE  SOURCE", its columns as heat2d-c's.
  function setting_row(setting, value, from) result(text)
    character(*), intent(in) :: setting, value, from
    character(:), allocatable :: text
    character(20) :: setting_column, value_column
    setting_column = setting
    value_column = value
    text = '  ' // setting_column // '  ' // value_column // '  ' // from // new_line('a')
  end function

  function decimal_text(value) result(word)
    integer, intent(in) :: value
    character(:), allocatable :: word
    character(16) :: buffer
    write(buffer, '(i0)') value
    word = trim(buffer)
  end function

  function flag_text(value) result(word)
    logical, intent(in) :: value
    character(:), allocatable :: word
    word = trim(merge('true ', 'false', value))
  end function

  ! integer_in_range in options.cpp: an option's value read by read_integer and within [least, most], else answer
  ! holds its words ("--nx: expected an integer (suffixes K, M, G allowed), got 'abc'", "--nx: Value 2 not in
  ! range 3 to 16777216", "--iters: Value 0 not in range 1 to 1073741824 (given as '+0')": the text as given where
  ! the value reads otherwise).
  logical function checked_integer(name, text, suffixes, least, most, value) result(ok)
    character(*), intent(in) :: name, text
    logical, intent(in) :: suffixes
    integer(int64), intent(in) :: least, most
    integer(int64), intent(out) :: value
    character(:), allocatable :: bounds, read_as
    ok = .false.
    bounds = ' not in range ' // decimal(least) // ' to ' // decimal(most)
    select case (read_integer(text, suffixes, value))
    case (0)
      answer = name // ': expected an integer'
      if (suffixes) answer = answer // ' (suffixes K, M, G allowed)'
      answer = answer // ", got '" // text // "'"
    case (2)  ! too large for 64 bits: named as given
      answer = name // ': Value ' // text // bounds
    case default
      ok = value >= least .and. value <= most
      if (ok) return
      read_as = decimal(value)
      answer = name // ': Value ' // read_as // bounds
      if (.not. same(read_as, text)) answer = answer // " (given as '" // text // "')"
    end select
  end function

  ! read_integer in apps/common/src/options.cpp: "64", "+3", "-1", " 8 ", and where `suffixes`, "4K", "8 kib",
  ! "1GB": a decimal integer and one unit (b; k, kb, ki, kib ... e: powers of 1024), any case; "0x10" and "1e3"
  ! are not integers, "010" is 10. Returns 0 when the text is none of these, 1 with value, 2 when it is one but
  ! its value does not fit 64 bits.
  integer function read_integer(text, suffixes, value) result(outcome)
    character(*), intent(in) :: text
    logical, intent(in) :: suffixes
    integer(int64), intent(out) :: value
    character(*), parameter :: blanks = ' ' // achar(9), digits = '0123456789', &
                               letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
    integer(int64), parameter :: least_int64 = -huge(0_int64) - 1
    character(:), allocatable :: unit
    integer(int64) :: factor
    integer :: first, last, unit_first, p, e, c, power
    logical :: negative, overflow
    outcome = 0
    value = 0
    first = verify(text, blanks)
    if (first == 0) return
    last = verify(text, blanks, back=.true.)
    unit_first = last + 1
    do while (unit_first > first)
      if (index(letters, text(unit_first - 1:unit_first - 1)) == 0) exit
      unit_first = unit_first - 1
    end do
    p = first
    e = unit_first - 1
    do while (e >= p)
      if (index(blanks, text(e:e)) == 0) exit
      e = e - 1
    end do
    if (p <= e) then
      if (text(p:p) == '+') p = p + 1  ! users write a leading '+'
    end if
    negative = .false.
    if (p <= e) negative = text(p:p) == '-'
    if (negative .and. text(first:first) == '+') return  ! "+-3"
    if (negative) p = p + 1
    if (p > e) return
    if (verify(text(p:e), digits) /= 0) return
    ! Accumulated below zero, where 64 bits reach one further (-2^63); further digits only overflow.
    overflow = .false.
    do c = p, e
      if (value < (least_int64 + (iachar(text(c:c)) - iachar('0'))) / 10) then
        overflow = .true.
        exit
      end if
      value = value * 10 - (iachar(text(c:c)) - iachar('0'))
    end do
    if (.not. negative .and. .not. overflow) then
      if (value == least_int64) then
        overflow = .true.
      else
        value = -value
      end if
    end if
    factor = 1
    if (unit_first <= last) then
      if (.not. suffixes) return
      unit = lowercase(text(unit_first:last))
      if (.not. same(unit, 'b')) then
        power = index('kmgtpe', unit(1:1))
        if (power == 0) return
        if (.not. (len(unit) == 1 .or. same(unit(2:), 'b') .or. same(unit(2:), 'i') .or. same(unit(2:), 'ib'))) return
        factor = 2_int64**(10 * power)
      end if
    end if
    if (.not. overflow) overflow = value > huge(value) / factor .or. value < least_int64 / factor
    outcome = merge(2, 1, overflow)
    if (.not. overflow) value = value * factor
  end function

  ! Argument i of the command line, whole (a fixed-length buffer would cut a long one and drop trailing blanks).
  function argument(i) result(text)
    integer, intent(in) :: i
    character(:), allocatable :: text
    integer :: length
    call get_command_argument(i, length=length)
    allocate(character(length) :: text)
    if (length > 0) call get_command_argument(i, text)
  end function

  ! Whether two texts are the same, length included (Fortran's == pads the shorter with blanks).
  logical function same(a, b)
    character(*), intent(in) :: a, b
    same = len(a) == len(b)
    if (same) same = a == b
  end function

  logical function starts_with(text, prefix)
    character(*), intent(in) :: text, prefix
    starts_with = len(text) >= len(prefix)
    if (starts_with) starts_with = text(:len(prefix)) == prefix
  end function

  ! A 64-bit integer in decimal, as C's %lld writes it.
  function decimal(value) result(text)
    integer(int64), intent(in) :: value
    character(:), allocatable :: text
    character(24) :: buffer
    write(buffer, '(i0)') value
    text = trim(buffer)
  end function

  ! "s" after a noun whose count is not 1 ("1 rank", "2 ranks"), as proxy::detail::counted in the C++ programs.
  function plural(count) result(suffix)
    integer, intent(in) :: count
    character(:), allocatable :: suffix
    suffix = 's'
    if (count == 1) suffix = ''
  end function
end program heat2d
