! module proxy: the proxy runtime for Fortran 2018 (`use proxy`), ISO_C_BINDING over the C API
! <proxy/proxy.h>; MPI handles are mpi_f08's type(MPI_Comm), type(MPI_Datatype), type(MPI_Op).
! Every function returns an integer status (PROXY_SUCCESS = 0); on failure proxy_last_error() is the C++
! exception's message. docs/c-fortran.md maps each function onto C and C++.
!
! Buffers named by a plan are used by the proxy thread between proxy_start and the end of proxy_wait: pass
! contiguous arrays (a column u(:, j), a whole array), never a section that needs a temporary copy, and
! declare them ASYNCHRONOUS (or TARGET) so that the compiler does not keep their values in registers across
! a wait. Thread contract as in C: create and free the environment and the proxy thread on the main thread;
! start, ready, wait, test, progress points and call from any thread.
module proxy
  use, intrinsic :: iso_c_binding
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op
  implicit none
  private

  ! proxy_status (proxy.h)
  integer(c_int), parameter, public :: PROXY_SUCCESS = 0, PROXY_ERROR = 1, PROXY_ERROR_SETTINGS = 2, &
      PROXY_ERROR_COMMUNICATION = 3, PROXY_ERROR_TIMEOUT = 4, PROXY_ERROR_ARGUMENT = 5, &
      PROXY_ERROR_NO_MEMORY = 6, PROXY_ERROR_UNKNOWN = 7
  integer(c_int64_t), parameter, public :: PROXY_WAIT_DEFAULT_TIMEOUT = -1

  type, public :: proxy_environment
    type(c_ptr), private :: handle = c_null_ptr
  end type
  type, public :: proxy_placement
    type(c_ptr), private :: handle = c_null_ptr
  end type
  type, public :: proxy_thread
    type(c_ptr), private :: handle = c_null_ptr
  end type
  type, public :: proxy_plan_spec
    type(c_ptr), private :: handle = c_null_ptr
  end type
  type, public :: proxy_plan
    type(c_ptr), private :: handle = c_null_ptr
  end type
  ! What proxy_then returns: the callback's own completion, to wait for or test; free it with
  ! proxy_completion_free.
  type, public :: proxy_completion
    type(c_ptr), private :: handle = c_null_ptr
  end type
  ! One start of a plan (proxy.h's proxy_ticket): valid while the plan is.
  type, public, bind(C) :: proxy_ticket
    type(c_ptr) :: plan = c_null_ptr
    integer(c_int64_t) :: epoch = 0
  end type

  ! What proxy_call runs on the proxy thread.
  abstract interface
    subroutine proxy_callback(context) bind(C)
      import :: c_ptr
      type(c_ptr), value :: context
    end subroutine
  end interface
  public :: proxy_callback

  public :: proxy_last_error, proxy_version, proxy_abort, proxy_settings_help, proxy_settings_show
  public :: proxy_environment_create, proxy_environment_free, proxy_environment_rank, proxy_environment_size
  public :: proxy_environment_placement, proxy_environment_bind_openmp_threads
  public :: proxy_placement_free, proxy_placement_describe
  public :: proxy_thread_create, proxy_thread_create_placed, proxy_thread_free, proxy_thread_rank, proxy_thread_size
  public :: proxy_thread_comm, proxy_thread_progress_strategy, proxy_check_memory
  public :: proxy_plan_spec_create, proxy_plan_spec_free, proxy_plan_spec_send, proxy_plan_spec_recv
  public :: proxy_plan_spec_broadcast, proxy_plan_spec_reduce, proxy_plan_spec_allreduce, proxy_plan_spec_parts
  public :: proxy_plan_spec_send_when_ready, proxy_plan_spec_recv_when_ready
  public :: proxy_plan_spec_reduce_contributions, proxy_plan_spec_allreduce_contributions
  public :: proxy_plan_spec_broadcast_when_ready, proxy_plan_spec_reduce_when_ready, proxy_plan_spec_allreduce_when_ready
  public :: proxy_commit, proxy_plan_free, proxy_start, proxy_ready, proxy_wait, proxy_test, proxy_progress_point
  public :: proxy_call, proxy_then, proxy_completion_wait, proxy_completion_test, proxy_completion_free

  interface
    type(c_ptr) function c_last_error() bind(C, name="proxy_last_error")
      import :: c_ptr
    end function
    type(c_ptr) function c_version() bind(C, name="proxy_version")
      import :: c_ptr
    end function
    integer(c_int) function c_settings_help(text, size) bind(C, name="proxy_settings_help")
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(out) :: text(*)
      integer(c_size_t), value :: size
    end function
    integer(c_int) function c_settings_show(text, size) bind(C, name="proxy_settings_show")
      import :: c_int, c_char, c_size_t
      character(kind=c_char), intent(out) :: text(*)
      integer(c_size_t), value :: size
    end function
    integer(c_size_t) function c_strlen(text) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
    end function
    subroutine c_abort(line, code) bind(C, name="proxy_abort")
      import :: c_char, c_int
      character(kind=c_char), intent(in) :: line(*)
      integer(c_int), value :: code
    end subroutine
    integer(c_int) function c_environment_create(program, environment) bind(C, name="proxy_f_environment_create")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: program(*)
      type(c_ptr), intent(out) :: environment
    end function
    integer(c_int) function c_environment_free(environment) bind(C, name="proxy_environment_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: environment
    end function
    integer(c_int) function c_environment_rank(environment, rank) bind(C, name="proxy_environment_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: environment
      integer(c_int), intent(out) :: rank
    end function
    integer(c_int) function c_environment_size(environment, size) bind(C, name="proxy_environment_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: environment
      integer(c_int), intent(out) :: size
    end function
    integer(c_int) function c_environment_placement(environment, threads, with_proxy, placement) &
        bind(C, name="proxy_environment_placement")
      import :: c_int, c_ptr
      type(c_ptr), value :: environment
      integer(c_int), value :: threads, with_proxy
      type(c_ptr), intent(out) :: placement
    end function
    integer(c_int) function c_environment_bind_openmp_threads(environment, placement, bound) &
        bind(C, name="proxy_environment_bind_openmp_threads")
      import :: c_int, c_ptr
      type(c_ptr), value :: environment, placement
      integer(c_int), intent(out) :: bound
    end function
    integer(c_int) function c_placement_free(placement) bind(C, name="proxy_placement_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: placement
    end function
    integer(c_int) function c_placement_describe(placement, text, size) bind(C, name="proxy_placement_describe")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: placement
      character(kind=c_char), intent(out) :: text(*)
      integer(c_size_t), value :: size
    end function
    integer(c_int) function c_thread_create(comm, thread) bind(C, name="proxy_f_thread_create")
      import :: c_int, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), intent(out) :: thread
    end function
    integer(c_int) function c_thread_create_placed(comm, placement, thread) bind(C, name="proxy_f_thread_create_placed")
      import :: c_int, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), value :: placement
      type(c_ptr), intent(out) :: thread
    end function
    integer(c_int) function c_thread_free(thread) bind(C, name="proxy_thread_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
    end function
    integer(c_int) function c_thread_rank(thread, rank) bind(C, name="proxy_thread_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
      integer(c_int), intent(out) :: rank
    end function
    integer(c_int) function c_thread_size(thread, size) bind(C, name="proxy_thread_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
      integer(c_int), intent(out) :: size
    end function
    integer(c_int) function c_thread_comm(thread, comm) bind(C, name="proxy_f_thread_comm")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
      integer(c_int), intent(out) :: comm
    end function
    integer(c_int) function c_thread_progress_strategy(thread, name) bind(C, name="proxy_thread_progress_strategy")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
      type(c_ptr), intent(out) :: name
    end function
    integer(c_int) function c_check_memory(thread, environment, what, bytes_per_rank) &
        bind(C, name="proxy_check_memory")
      import :: c_int, c_ptr, c_char, c_double
      type(c_ptr), value :: thread, environment
      character(kind=c_char), intent(in) :: what(*)
      real(c_double), value :: bytes_per_rank
    end function
    integer(c_int) function c_plan_spec_create(name, spec) bind(C, name="proxy_plan_spec_create")
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: spec
    end function
    integer(c_int) function c_plan_spec_free(spec) bind(C, name="proxy_plan_spec_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
    end function
    integer(c_int) function c_plan_spec_send(spec, peer, tag, buffer, count, datatype) bind(C, name="proxy_f_plan_spec_send")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: peer, tag, count, datatype
      type(*), dimension(*), intent(in), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_recv(spec, peer, tag, buffer, count, datatype) bind(C, name="proxy_f_plan_spec_recv")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: peer, tag, count, datatype
      type(*), dimension(*), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_broadcast(spec, comm, root, buffer, count, datatype) &
        bind(C, name="proxy_f_plan_spec_broadcast")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: comm, root, count, datatype
      type(*), dimension(*), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_reduce(spec, comm, root, send, result, count, datatype, op) &
        bind(C, name="proxy_f_plan_spec_reduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: comm, root, count, datatype, op
      type(*), dimension(*), intent(in), asynchronous :: send
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_plan_spec_allreduce(spec, comm, send, result, count, datatype, op) &
        bind(C, name="proxy_f_plan_spec_allreduce")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: comm, count, datatype, op
      type(*), dimension(*), intent(in), asynchronous :: send
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_plan_spec_parts(spec, count) bind(C, name="proxy_plan_spec_parts")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: count
    end function
    integer(c_int) function c_plan_spec_send_when_ready(spec, parts, part_count, peer, tag, buffer, count, datatype) &
        bind(C, name="proxy_f_plan_spec_send_when_ready")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), intent(in) :: parts(*)
      integer(c_int), value :: part_count, peer, tag, count, datatype
      type(*), dimension(*), intent(in), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_recv_when_ready(spec, parts, part_count, peer, tag, buffer, count, datatype) &
        bind(C, name="proxy_f_plan_spec_recv_when_ready")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), intent(in) :: parts(*)
      integer(c_int), value :: part_count, peer, tag, count, datatype
      type(*), dimension(*), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_reduce_contributions(spec, comm, root, contributions, contribution_count, &
        result, count, datatype, op) bind(C, name="proxy_f_plan_spec_reduce_contributions")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: comm, root, contribution_count, count, datatype, op
      type(c_ptr), intent(in) :: contributions(*)
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_plan_spec_allreduce_contributions(spec, comm, contributions, contribution_count, &
        result, count, datatype, op) bind(C, name="proxy_f_plan_spec_allreduce_contributions")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), value :: comm, contribution_count, count, datatype, op
      type(c_ptr), intent(in) :: contributions(*)
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_plan_spec_broadcast_when_ready(spec, parts, part_count, comm, root, buffer, count, &
        datatype) bind(C, name="proxy_f_plan_spec_broadcast_when_ready")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), intent(in) :: parts(*)
      integer(c_int), value :: part_count, comm, root, count, datatype
      type(*), dimension(*), asynchronous :: buffer
    end function
    integer(c_int) function c_plan_spec_reduce_when_ready(spec, parts, part_count, comm, root, contributions, &
        contribution_count, result, count, datatype, op) bind(C, name="proxy_f_plan_spec_reduce_when_ready")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), intent(in) :: parts(*)
      integer(c_int), value :: part_count, comm, root, contribution_count, count, datatype, op
      type(c_ptr), intent(in) :: contributions(*)
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_plan_spec_allreduce_when_ready(spec, parts, part_count, comm, contributions, &
        contribution_count, result, count, datatype, op) bind(C, name="proxy_f_plan_spec_allreduce_when_ready")
      import :: c_int, c_ptr
      type(c_ptr), value :: spec
      integer(c_int), intent(in) :: parts(*)
      integer(c_int), value :: part_count, comm, contribution_count, count, datatype, op
      type(c_ptr), intent(in) :: contributions(*)
      type(*), dimension(*), asynchronous :: result
    end function
    integer(c_int) function c_commit(thread, spec, plan) bind(C, name="proxy_commit")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread, spec
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function c_plan_free(plan) bind(C, name="proxy_plan_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: plan
    end function
    integer(c_int) function c_start(thread, plan, ticket) bind(C, name="proxy_start")
      import :: c_int, c_ptr, proxy_ticket
      type(c_ptr), value :: thread, plan
      type(proxy_ticket), intent(out) :: ticket
    end function
    integer(c_int) function c_ready(thread, ticket, part) bind(C, name="proxy_ready")
      import :: c_int, c_ptr, proxy_ticket
      type(c_ptr), value :: thread
      type(proxy_ticket), value :: ticket
      integer(c_int), value :: part
    end function
    integer(c_int) function c_wait(thread, ticket, timeout_ms) bind(C, name="proxy_wait")
      import :: c_int, c_ptr, c_int64_t, proxy_ticket
      type(c_ptr), value :: thread
      type(proxy_ticket), value :: ticket
      integer(c_int64_t), value :: timeout_ms
    end function
    integer(c_int) function c_test(thread, ticket, done) bind(C, name="proxy_test")
      import :: c_int, c_ptr, proxy_ticket
      type(c_ptr), value :: thread
      type(proxy_ticket), value :: ticket
      integer(c_int), intent(out) :: done
    end function
    integer(c_int) function c_progress_point(thread) bind(C, name="proxy_progress_point")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread
    end function
    integer(c_int) function c_call(thread, function, context, name) bind(C, name="proxy_call")
      import :: c_int, c_ptr, c_funptr, c_char
      type(c_ptr), value :: thread, context
      type(c_funptr), value :: function
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function c_then(thread, ticket, function, context, completion) bind(C, name="proxy_then")
      import :: c_int, c_ptr, c_funptr, proxy_ticket
      type(c_ptr), value :: thread, context, completion
      type(proxy_ticket), value :: ticket
      type(c_funptr), value :: function
    end function
    integer(c_int) function c_completion_wait(thread, completion, timeout_ms) bind(C, name="proxy_completion_wait")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: thread, completion
      integer(c_int64_t), value :: timeout_ms
    end function
    integer(c_int) function c_completion_test(thread, completion, done) bind(C, name="proxy_completion_test")
      import :: c_int, c_ptr
      type(c_ptr), value :: thread, completion
      integer(c_int), intent(out) :: done
    end function
    integer(c_int) function c_completion_free(completion) bind(C, name="proxy_completion_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: completion
    end function
  end interface

contains

  ! Fortran text as a NUL-terminated C string.
  pure function c_string(text) result(c)
    character(*), intent(in) :: text
    character(kind=c_char) :: c(len(text) + 1)
    integer :: i
    do i = 1, len(text)
      c(i) = text(i:i)
    end do
    c(len(text) + 1) = c_null_char
  end function

  ! A C string (NUL-terminated, not NULL) as Fortran text.
  function f_string(text) result(f)
    type(c_ptr), intent(in) :: text
    character(:), allocatable :: f
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(text))
    call c_f_pointer(text, chars, [n])
    allocate(character(n) :: f)
    do i = 1, n
      f(i:i) = chars(i)
    end do
  end function

  ! The message of the last failing call on this thread: the C++ exception's what().
  function proxy_last_error() result(message)
    character(:), allocatable :: message
    message = f_string(c_last_error())
  end function

  ! The runtime's version, "0.1.0".
  function proxy_version() result(version)
    character(:), allocatable :: version
    version = f_string(c_version())
  end function

  ! A program's --help footer (the PROXY_* table, the OMP_* note, the exit statuses), as the C++ drivers'.
  integer function proxy_settings_help(text) result(status)
    character(:), allocatable, intent(out) :: text
    character(kind=c_char) :: buffer(8192)
    buffer = c_null_char
    status = c_settings_help(buffer, size(buffer, kind=c_size_t))
    text = buffer_text(buffer)
  end function

  ! A program's --show-config rows of the PROXY_* (and OMP_*) settings, "  SETTING  VALUE  SOURCE" lines. The rows
  ! of the OMP_* variables set have no bound (a long OMP_PLACES): the buffer doubles until they fit (it was 8192
  ! bytes, and a longer text gave PROXY_ERROR_ARGUMENT and nothing).
  integer function proxy_settings_show(text) result(status)
    character(:), allocatable, intent(out) :: text
    character(kind=c_char), allocatable :: buffer(:)
    integer :: length
    length = 8192
    do
      allocate(buffer(length))
      buffer = c_null_char
      status = c_settings_show(buffer, size(buffer, kind=c_size_t))
      if (status /= PROXY_ERROR_ARGUMENT .or. length >= 16777216) exit
      deallocate(buffer)
      length = 2 * length
    end do
    text = buffer_text(buffer)
  end function

  ! The characters of a C string written into buffer, up to its terminating NUL.
  function buffer_text(buffer) result(text)
    character(kind=c_char), intent(in) :: buffer(:)
    character(:), allocatable :: text
    integer :: n
    n = 0
    do while (n < size(buffer))
      if (buffer(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate(character(n) :: text)
    text = transfer(buffer(1:n), text)
  end function

  ! Ends every rank: writes the line to stderr whole, then MPI_Abort(code).
  subroutine proxy_abort(line, code)
    character(*), intent(in) :: line
    integer, intent(in) :: code
    call c_abort(c_string(line), int(code, c_int))
  end subroutine

  ! Starts MPI (MPI_THREAD_SERIALIZED) unless the program already did; PROXY_ERROR_SETTINGS: exit with 2.
  integer function proxy_environment_create(env) result(status)
    type(proxy_environment), intent(out) :: env
    character(4096) :: program
    call get_command_argument(0, program)
    status = c_environment_create(c_string(trim(program)), env%handle)
  end function

  integer function proxy_environment_free(env) result(status)
    type(proxy_environment), intent(inout) :: env
    status = c_environment_free(env%handle)
    env%handle = c_null_ptr
  end function

  integer function proxy_environment_rank(env, rank) result(status)
    type(proxy_environment), intent(in) :: env
    integer, intent(out) :: rank
    integer(c_int) :: r
    status = c_environment_rank(env%handle, r)
    rank = r
  end function

  integer function proxy_environment_size(env, size) result(status)
    type(proxy_environment), intent(in) :: env
    integer, intent(out) :: size
    integer(c_int) :: s
    status = c_environment_size(env%handle, s)
    size = s
  end function

  ! threads = 0: one compute thread per compute core; with_proxy reserves a core for the proxy.
  integer function proxy_environment_placement(env, threads, with_proxy, placement) result(status)
    type(proxy_environment), intent(in) :: env
    integer, intent(in) :: threads
    logical, intent(in) :: with_proxy
    type(proxy_placement), intent(out) :: placement
    status = c_environment_placement(env%handle, int(threads, c_int), merge(1_c_int, 0_c_int, with_proxy), &
                                     placement%handle)
  end function

  integer function proxy_environment_bind_openmp_threads(env, placement, bound) result(status)
    type(proxy_environment), intent(in) :: env
    type(proxy_placement), intent(in) :: placement
    logical, intent(out), optional :: bound
    integer(c_int) :: b
    status = c_environment_bind_openmp_threads(env%handle, placement%handle, b)
    if (present(bound)) bound = b /= 0
  end function

  integer function proxy_placement_free(placement) result(status)
    type(proxy_placement), intent(inout) :: placement
    status = c_placement_free(placement%handle)
    placement%handle = c_null_ptr
  end function

  integer function proxy_placement_describe(placement, text) result(status)
    type(proxy_placement), intent(in) :: placement
    character(:), allocatable, intent(out) :: text
    character(kind=c_char) :: buffer(1024)
    buffer = c_null_char
    status = c_placement_describe(placement%handle, buffer, size(buffer, kind=c_size_t))
    text = buffer_text(buffer)
  end function

  integer function proxy_thread_create(comm, thread) result(status)
    type(MPI_Comm), intent(in) :: comm
    type(proxy_thread), intent(out) :: thread
    status = c_thread_create(int(comm%MPI_VAL, c_int), thread%handle)
  end function

  integer function proxy_thread_create_placed(comm, placement, thread) result(status)
    type(MPI_Comm), intent(in) :: comm
    type(proxy_placement), intent(in) :: placement
    type(proxy_thread), intent(out) :: thread
    status = c_thread_create_placed(int(comm%MPI_VAL, c_int), placement%handle, thread%handle)
  end function

  integer function proxy_thread_free(thread) result(status)
    type(proxy_thread), intent(inout) :: thread
    status = c_thread_free(thread%handle)
    thread%handle = c_null_ptr
  end function

  integer function proxy_thread_rank(thread, rank) result(status)
    type(proxy_thread), intent(in) :: thread
    integer, intent(out) :: rank
    integer(c_int) :: r
    status = c_thread_rank(thread%handle, r)
    rank = r
  end function

  integer function proxy_thread_size(thread, size) result(status)
    type(proxy_thread), intent(in) :: thread
    integer, intent(out) :: size
    integer(c_int) :: s
    status = c_thread_size(thread%handle, s)
    size = s
  end function

  ! The proxy's private duplicate of the communicator, for MPI calls made through proxy_call.
  integer function proxy_thread_comm(thread, comm) result(status)
    type(proxy_thread), intent(in) :: thread
    type(MPI_Comm), intent(out) :: comm
    integer(c_int) :: c
    status = c_thread_comm(thread%handle, c)
    comm%MPI_VAL = c
  end function

  integer function proxy_thread_progress_strategy(thread, name) result(status)
    type(proxy_thread), intent(in) :: thread
    character(:), allocatable, intent(out) :: name
    type(c_ptr) :: text
    status = c_thread_progress_strategy(thread%handle, text)
    if (status == PROXY_SUCCESS) then
      name = f_string(text)
    else
      name = ""
    end if
  end function

  ! Before allocating (proxy.h's proxy_check_memory): PROXY_ERROR_SETTINGS on every rank when bytes_per_rank
  ! does not fit in what each rank of the node may still take, proxy_last_error() the line naming `what`.
  ! Collective over the proxy's communicator.
  integer function proxy_check_memory(thread, env, what, bytes_per_rank) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_environment), intent(in) :: env
    character(*), intent(in) :: what
    real(c_double), intent(in) :: bytes_per_rank
    status = c_check_memory(thread%handle, env%handle, c_string(what), bytes_per_rank)
  end function

  integer function proxy_plan_spec_create(name, spec) result(status)
    character(*), intent(in) :: name
    type(proxy_plan_spec), intent(out) :: spec
    status = c_plan_spec_create(c_string(name), spec%handle)
  end function

  integer function proxy_plan_spec_free(spec) result(status)
    type(proxy_plan_spec), intent(inout) :: spec
    status = c_plan_spec_free(spec%handle)
    spec%handle = c_null_ptr
  end function

  integer function proxy_plan_spec_send(spec, peer, tag, buffer, count, datatype) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: peer, tag, count
    type(*), dimension(*), intent(in), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    status = c_plan_spec_send(spec%handle, int(peer, c_int), int(tag, c_int), buffer, int(count, c_int), &
                              int(datatype%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_recv(spec, peer, tag, buffer, count, datatype) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: peer, tag, count
    type(*), dimension(*), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    status = c_plan_spec_recv(spec%handle, int(peer, c_int), int(tag, c_int), buffer, int(count, c_int), &
                              int(datatype%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_broadcast(spec, comm, root, buffer, count, datatype) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: root, count
    type(*), dimension(*), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    status = c_plan_spec_broadcast(spec%handle, int(comm%MPI_VAL, c_int), int(root, c_int), buffer, &
                                   int(count, c_int), int(datatype%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_reduce(spec, comm, root, send, result, count, datatype, op) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: root, count
    type(*), dimension(*), intent(in), asynchronous :: send
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    status = c_plan_spec_reduce(spec%handle, int(comm%MPI_VAL, c_int), int(root, c_int), send, result, &
                                int(count, c_int), int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_allreduce(spec, comm, send, result, count, datatype, op) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: count
    type(*), dimension(*), intent(in), asynchronous :: send
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    status = c_plan_spec_allreduce(spec%handle, int(comm%MPI_VAL, c_int), send, result, int(count, c_int), &
                                   int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_parts(spec, count) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: count
    status = c_plan_spec_parts(spec%handle, int(count, c_int))
  end function

  ! parts: numbered from 0, as in C and C++.
  integer function proxy_plan_spec_send_when_ready(spec, parts, peer, tag, buffer, count, datatype) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: parts(:), peer, tag, count
    type(*), dimension(*), intent(in), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int) :: c_parts(size(parts))
    c_parts = int(parts, c_int)
    status = c_plan_spec_send_when_ready(spec%handle, c_parts, int(size(parts), c_int), int(peer, c_int), &
                                         int(tag, c_int), buffer, int(count, c_int), int(datatype%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_recv_when_ready(spec, parts, peer, tag, buffer, count, datatype) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: parts(:), peer, tag, count
    type(*), dimension(*), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int) :: c_parts(size(parts))
    c_parts = int(parts, c_int)
    status = c_plan_spec_recv_when_ready(spec%handle, c_parts, int(size(parts), c_int), int(peer, c_int), &
                                         int(tag, c_int), buffer, int(count, c_int), int(datatype%MPI_VAL, c_int))
  end function

  ! Hierarchical forms: contributions(t) = c_loc(partial(:, t)) of a TARGET array (one per thread or row), each
  ! of `count` elements, reduced by the proxy in their order at each start, then over the ranks of comm.
  integer function proxy_plan_spec_reduce_contributions(spec, comm, root, contributions, result, count, datatype, &
                                                        op) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: root, count
    type(c_ptr), intent(in) :: contributions(:)
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(c_ptr) :: c_contributions(size(contributions))
    c_contributions = contributions
    status = c_plan_spec_reduce_contributions(spec%handle, int(comm%MPI_VAL, c_int), int(root, c_int), &
                                              c_contributions, int(size(contributions), c_int), result, &
                                              int(count, c_int), int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_allreduce_contributions(spec, comm, contributions, result, count, datatype, op) &
      result(status)
    type(proxy_plan_spec), intent(in) :: spec
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: count
    type(c_ptr), intent(in) :: contributions(:)
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    type(c_ptr) :: c_contributions(size(contributions))
    c_contributions = contributions
    status = c_plan_spec_allreduce_contributions(spec%handle, int(comm%MPI_VAL, c_int), c_contributions, &
                                                 int(size(contributions), c_int), result, int(count, c_int), &
                                                 int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  ! The collective elements held each epoch until all of parts(:) (numbered from 0) are marked ready.
  integer function proxy_plan_spec_broadcast_when_ready(spec, parts, comm, root, buffer, count, datatype) &
      result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: parts(:), root, count
    type(MPI_Comm), intent(in) :: comm
    type(*), dimension(*), asynchronous :: buffer
    type(MPI_Datatype), intent(in) :: datatype
    integer(c_int) :: c_parts(size(parts))
    c_parts = int(parts, c_int)
    status = c_plan_spec_broadcast_when_ready(spec%handle, c_parts, int(size(parts), c_int), int(comm%MPI_VAL, c_int), &
                                              int(root, c_int), buffer, int(count, c_int), int(datatype%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_reduce_when_ready(spec, parts, comm, root, contributions, result, count, datatype, &
                                                     op) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: parts(:), root, count
    type(MPI_Comm), intent(in) :: comm
    type(c_ptr), intent(in) :: contributions(:)
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    integer(c_int) :: c_parts(size(parts))
    type(c_ptr) :: c_contributions(size(contributions))
    c_parts = int(parts, c_int)
    c_contributions = contributions
    status = c_plan_spec_reduce_when_ready(spec%handle, c_parts, int(size(parts), c_int), int(comm%MPI_VAL, c_int), &
                                           int(root, c_int), c_contributions, int(size(contributions), c_int), result, &
                                           int(count, c_int), int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  integer function proxy_plan_spec_allreduce_when_ready(spec, parts, comm, contributions, result, count, datatype, &
                                                        op) result(status)
    type(proxy_plan_spec), intent(in) :: spec
    integer, intent(in) :: parts(:), count
    type(MPI_Comm), intent(in) :: comm
    type(c_ptr), intent(in) :: contributions(:)
    type(*), dimension(*), asynchronous :: result
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Op), intent(in) :: op
    integer(c_int) :: c_parts(size(parts))
    type(c_ptr) :: c_contributions(size(contributions))
    c_parts = int(parts, c_int)
    c_contributions = contributions
    status = c_plan_spec_allreduce_when_ready(spec%handle, c_parts, int(size(parts), c_int), int(comm%MPI_VAL, c_int), &
                                              c_contributions, int(size(contributions), c_int), result, &
                                              int(count, c_int), int(datatype%MPI_VAL, c_int), int(op%MPI_VAL, c_int))
  end function

  integer function proxy_commit(thread, spec, plan) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_plan_spec), intent(in) :: spec
    type(proxy_plan), intent(out) :: plan
    status = c_commit(thread%handle, spec%handle, plan%handle)
  end function

  integer function proxy_plan_free(plan) result(status)
    type(proxy_plan), intent(inout) :: plan
    status = c_plan_free(plan%handle)
    plan%handle = c_null_ptr
  end function

  integer function proxy_start(thread, plan, ticket) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_plan), intent(in) :: plan
    type(proxy_ticket), intent(out) :: ticket
    status = c_start(thread%handle, plan%handle, ticket)
  end function

  integer function proxy_ready(thread, ticket, part) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_ticket), intent(in) :: ticket
    integer, intent(in) :: part
    status = c_ready(thread%handle, ticket, int(part, c_int))
  end function

  ! timeout_ms absent: the proxy's configured timeout (PROXY_WAIT_TIMEOUT).
  integer function proxy_wait(thread, ticket, timeout_ms) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_ticket), intent(in) :: ticket
    integer(c_int64_t), intent(in), optional :: timeout_ms
    integer(c_int64_t) :: timeout
    timeout = PROXY_WAIT_DEFAULT_TIMEOUT
    if (present(timeout_ms)) timeout = timeout_ms
    status = c_wait(thread%handle, ticket, timeout)
  end function

  integer function proxy_test(thread, ticket, done) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_ticket), intent(in) :: ticket
    logical, intent(out) :: done
    integer(c_int) :: d
    status = c_test(thread%handle, ticket, d)
    done = d /= 0
  end function

  integer function proxy_progress_point(thread) result(status)
    type(proxy_thread), intent(in) :: thread
    status = c_progress_point(thread%handle)
  end function

  ! Runs callback(context) on the proxy thread and waits for it (one-off MPI calls: use proxy_thread_comm).
  integer function proxy_call(thread, callback, context, name) result(status)
    type(proxy_thread), intent(in) :: thread
    procedure(proxy_callback) :: callback
    type(c_ptr), intent(in) :: context
    character(*), intent(in), optional :: name
    if (present(name)) then
      status = c_call(thread%handle, c_funloc(callback), context, c_string(name))
    else
      status = c_call(thread%handle, c_funloc(callback), context, c_string("call"))
    end if
  end function

  ! Runs callback(context) on the proxy thread once the ticket's epoch has completed, and returns at once.
  ! completion absent: nobody waits for the callback; present: wait for it, test it, and free it.
  integer function proxy_then(thread, ticket, callback, context, completion) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_ticket), intent(in) :: ticket
    procedure(proxy_callback) :: callback
    type(c_ptr), intent(in) :: context
    type(proxy_completion), intent(out), optional, target :: completion
    if (present(completion)) then
      status = c_then(thread%handle, ticket, c_funloc(callback), context, c_loc(completion%handle))
    else
      status = c_then(thread%handle, ticket, c_funloc(callback), context, c_null_ptr)
    end if
  end function

  ! timeout_ms absent: the proxy's configured timeout, as proxy_wait.
  integer function proxy_completion_wait(thread, completion, timeout_ms) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_completion), intent(in) :: completion
    integer(c_int64_t), intent(in), optional :: timeout_ms
    integer(c_int64_t) :: timeout
    timeout = PROXY_WAIT_DEFAULT_TIMEOUT
    if (present(timeout_ms)) timeout = timeout_ms
    status = c_completion_wait(thread%handle, completion%handle, timeout)
  end function

  integer function proxy_completion_test(thread, completion, done) result(status)
    type(proxy_thread), intent(in) :: thread
    type(proxy_completion), intent(in) :: completion
    logical, intent(out) :: done
    integer(c_int) :: d
    status = c_completion_test(thread%handle, completion%handle, d)
    done = d /= 0
  end function

  integer function proxy_completion_free(completion) result(status)
    type(proxy_completion), intent(inout) :: completion
    status = c_completion_free(completion%handle)
    completion%handle = c_null_ptr
  end function

end module proxy
