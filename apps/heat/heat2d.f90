! heat2d-fortran: heat2d (heat2d.cpp) in Fortran, through `use proxy`: the same explicit 2-D heat equation,
! rows split over the ranks, the halo rows moved by a plan per buffer while OpenMP threads update the
! interior rows. --verify recomputes the whole grid serially on every rank, compares bit for bit, and prints
! the checksum heat2d-c prints (tests/c compare it with the C++ heat2d's rows).
!   usage: mpiexec -n 2 heat2d-fortran [--nx 256] [--ny 256] [--iters 200] [--verify] [--bad-peer]
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
  logical :: verify_requested = .false., bad_peer = .false.
  character(:), allocatable :: where, strategy, answer
  character(16) :: name, hex

  status = proxy_environment_create(env)
  if (status == PROXY_ERROR_SETTINGS) stop exit_usage, quiet=.true.  ! its line was written already
  if (status /= PROXY_SUCCESS) call fail(proxy_last_error())
  status = proxy_environment_rank(env, rank)
  status = proxy_environment_size(env, size)
  outcome = parse()
  call check(proxy_environment_placement(env, 0, .true., placement))
  call check(proxy_thread_create_placed(MPI_COMM_WORLD, placement, thread))
  call check(proxy_environment_bind_openmp_threads(env, placement))
  outcome = agree(outcome)
  if (outcome < 0) outcome = check_size()
  if (outcome >= 0) then  ! --help, --version, a usage error or a grid too big: its exit status
    call check(proxy_thread_free(thread))
    call check(proxy_placement_free(placement))
    status = proxy_environment_free(env)
    call finish(outcome)
  end if

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

  ! Hexadecimal digits as C's %x writes them.
  pure function lowercase(text) result(lower)
    character(*), intent(in) :: text
    character(len(text)) :: lower
    integer :: i
    lower = text
    do i = 1, len(text)
      if (text(i:i) >= 'A' .and. text(i:i) <= 'F') lower(i:i) = achar(iachar(text(i:i)) + 32)
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
    character(256) :: message
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
      text = '--help or --version'
    else if (which >= 5) then
      text = trim(names(which)) // merge(' given    ', ' not given', values(which) == 1)
    else
      write(text, '(a,1x,i0)') trim(names(which)), values(which)
    end if
  end function

  ! Parses the command line as the C++ drivers parse theirs (apps/common/src/options.cpp): "--name value" or
  ! "--name=value", each option at most once, the same words for each refusal. Returns -1 to run, 0 when --help or
  ! --version stopped the parse (answer holds the text), exit_usage for a bad argument (answer holds the line).
  ! Nothing is written before every rank agrees.
  integer function parse() result(outcome)
    ! The options as the C++ heat2d declares them (heat2d_problem.cpp); the first three take a value.
    character(*), parameter :: names(7) = [character(10) :: '--nx', '--ny', '--iters', '--verify', '--bad-peer', &
                                           '--version', '--help']
    character(*), parameter :: value_names(3) = [character(2) :: 'NX', 'NY', 'K']
    character(256) :: argument, option, text
    integer :: i, k, equals, value, least, io
    logical :: given(7)
    given = .false.
    outcome = exit_usage  ! until the parse ends well
    i = 1
    do while (i <= command_argument_count())
      call get_command_argument(i, argument)
      i = i + 1
      option = argument
      text = ''
      equals = 0
      if (argument(1:2) == '--') equals = index(argument, '=')
      if (equals > 0) then
        option = argument(:equals - 1)
        text = argument(equals + 1:)
      end if
      k = 1
      do while (k <= 7)
        if (names(k) == option) exit
        k = k + 1
      end do
      if (k > 7) then
        answer = "unknown option '" // trim(option) // "'"
        return
      end if
      if (given(k)) then
        answer = 'option ' // trim(names(k)) // ' given twice'
        return
      end if
      given(k) = .true.
      if (k > 3 .and. equals > 0) then
        answer = 'option ' // trim(names(k)) // " takes no value, got '" // trim(text) // "'"
        return
      end if
      select case (k)
      case (1)
        least = 3
      case (2)
        least = size
      case (3)
        least = 1
      case (4)
        verify_requested = .true.
        cycle
      case (5)
        bad_peer = .true.
        cycle
      case (6)
        answer = 'heat2d-fortran (proxy) ' // proxy_version()
        outcome = exit_success
        return
      case (7)
        answer = 'usage: heat2d-fortran [--nx 256] [--ny 256] [--iters 200] [--verify] [--bad-peer] [--version]'
        outcome = exit_success
        return
      end select
      if (equals > 0 .and. len_trim(text) == 0) then
        answer = 'option ' // trim(names(k)) // " needs a value after '=' (" // trim(value_names(k)) // ')'
        return
      end if
      if (equals == 0) then
        if (i > command_argument_count()) then
          answer = 'option ' // trim(names(k)) // ' needs a value (' // trim(value_names(k)) // ')'
          return
        end if
        call get_command_argument(i, text)
        i = i + 1
      end if
      read(text, *, iostat=io) value
      ! (value is undefined after a failed read)
      if (io /= 0 .or. len_trim(text) == 0 .or. .not. is_decimal(text)) value = least - 1
      if (value < least .or. value > 2**24) then
        write(line, '(a,i0,a,i0,a)') trim(names(k)) // ' must be an integer from ', least, ' to ', 2**24, &
            ", got '" // trim(text) // "'"
        answer = trim(line)
        return
      end if
      select case (k)
      case (1)
        nx = value
      case (2)
        ny = value
      case (3)
        steps = value
      end select
    end do
    outcome = -1
  end function

  ! "s" after a noun whose count is not 1 ("1 rank", "2 ranks"), as proxy::detail::counted in the C++ programs.
  function plural(count) result(suffix)
    integer, intent(in) :: count
    character(:), allocatable :: suffix
    suffix = 's'
    if (count == 1) suffix = ''
  end function

  ! Whether text is a decimal integer (list-directed read would also take "3,4" or "3 x").
  logical function is_decimal(text)
    character(*), intent(in) :: text
    is_decimal = verify(trim(text), '0123456789') == 0
  end function
end program heat2d
