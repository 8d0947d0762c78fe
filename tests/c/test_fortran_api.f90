! The module's newer entry points (`use proxy`), on 2 or more ranks with OpenMP threads: the hierarchical
! collective elements (one contribution per thread, c_loc of a TARGET column, reduced by the proxy, then over
! the ranks: exact integer sums over several epochs, the documented left-to-right order for doubles, a reduce
! to the last rank, a refused element's message) and proxy_then (a bind(C) callback run on the proxy once an
! epoch completed). Prints "test_fortran_api: N checks passed on R ranks" on
! rank 0; a failed check ends the job with exit 1.
module then_callbacks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_int64_t, c_f_pointer
  implicit none
  ! What a proxy_then callback saw: the value at `watched` when it ran, and how often it ran.
  type, bind(C) :: then_record
    type(c_ptr) :: watched = c_null_ptr
    integer(c_int64_t) :: seen = -1
    integer(c_int) :: runs = 0
  end type
contains
  subroutine record_watched(context) bind(C)
    type(c_ptr), value :: context
    type(then_record), pointer :: record
    integer(c_int64_t), pointer :: watched
    call c_f_pointer(context, record)
    call c_f_pointer(record%watched, watched)
    record%seen = watched
    record%runs = record%runs + 1
  end subroutine
end module then_callbacks

program test_fortran_api
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_null_ptr
  use, intrinsic :: iso_fortran_env, only: real64, int64
  use mpi_f08, only: MPI_Comm, MPI_COMM_WORLD, MPI_COMM_NULL, MPI_INTEGER8, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_UNDEFINED, MPI_Datatype, MPI_Type_contiguous, MPI_Type_free, operator(==)
  use proxy
  use then_callbacks, only: then_record, record_watched
  implicit none
  integer, parameter :: threads = 3, epochs = 3
  type(proxy_environment) :: env
  type(proxy_thread) :: thread, no_thread
  type(MPI_Comm) :: comm
  type(proxy_plan_spec) :: spec
  type(proxy_plan) :: dot, ordered, refused
  type(proxy_ticket) :: ticket
  integer :: rank, size, t, epoch, checks, status
  integer :: marked(0:threads - 1), all_parts(threads)
  integer(int64), target, asynchronous :: partial(2, 0:threads - 1)
  integer(int64), target, asynchronous :: total(2)
  type(then_record), target :: after
  type(proxy_completion) :: completion
  logical :: done
  real(real64), target, asynchronous :: terms(3)
  character(len=256) :: expected
  real(real64), asynchronous :: sum_last(1)  ! the reduce's result (the last rank's)
  type(c_ptr) :: partials(threads), term_pointers(3)
  type(MPI_Datatype) :: uncommitted  ! two doubles, never committed: refused at commit

  checks = 0
  if (proxy_environment_create(env) /= PROXY_SUCCESS) stop 1
  call ok(proxy_environment_rank(env, rank), "rank")
  call ok(proxy_environment_size(env, size), "size")
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, uncommitted)  ! before the proxy owns MPI
  call ok(proxy_thread_create(MPI_COMM_WORLD, thread), "proxy_thread_create")

  ! Each thread writes its partial and marks its part; the proxy adds them up, then allreduces.
  do t = 0, threads - 1
    partials(t + 1) = c_loc(partial(1, t))
    all_parts(t + 1) = t
  end do
  call ok(proxy_plan_spec_create("dot", spec), "create dot")
  call ok(proxy_plan_spec_parts(spec, threads), "parts")
  call ok(proxy_plan_spec_allreduce_when_ready(spec, all_parts, MPI_COMM_WORLD, partials, total, 2, MPI_INTEGER8, &
                                               MPI_SUM), "allreduce_when_ready")
  call ok(proxy_commit(thread, spec, dot), "commit dot")
  call ok(proxy_plan_spec_free(spec), "free dot")
  do epoch = 0, epochs - 1
    call ok(proxy_start(thread, dot, ticket), "start dot")
    !$omp parallel do num_threads(threads) schedule(static, 1)
    do t = 0, threads - 1
      partial(1, t) = 1000_int64 * (rank + 1) + 10 * t + epoch
      partial(2, t) = -partial(1, t) * 3
      marked(t) = proxy_ready(thread, ticket, t)
    end do
    !$omp end parallel do
    do t = 0, threads - 1
      call ok(marked(t), "ready")
    end do
    call ok(proxy_wait(thread, ticket), "wait dot")
    ! sum over r, t of 1000 (r + 1) + 10 t + epoch
    call check(total(1) == expected_total(epoch), "allreduce sum")
    call check(total(2) == -3 * total(1), "allreduce second element")
  end do

  ! proxy_then: held until this rank marks its parts, so the callback cannot have run; then it runs once, on
  ! the proxy, after the allreduce: it sees the sum.
  after%watched = c_loc(total(1))
  call ok(proxy_start(thread, dot, ticket), "start dot for then")
  call ok(proxy_then(thread, ticket, record_watched, c_loc(after), completion), "proxy_then")
  call ok(proxy_completion_test(thread, completion, done), "proxy_completion_test")
  call check(.not. done .and. after%runs == 0, "the callback waits for the epoch")
  do t = 0, threads - 1
    partial(1, t) = 1000_int64 * (rank + 1) + 10 * t + epochs
    partial(2, t) = 0
    call ok(proxy_ready(thread, ticket, t), "ready for then")
  end do
  call ok(proxy_completion_wait(thread, completion), "proxy_completion_wait")
  call check(after%runs == 1 .and. after%seen == expected_total(epochs), "the callback saw the sum")
  call ok(proxy_completion_test(thread, completion, done), "proxy_completion_test after")
  call check(done, "completion done")
  call ok(proxy_completion_free(completion), "proxy_completion_free")
  call ok(proxy_wait(thread, ticket), "wait dot after then")
  ! A negative timeout other than the default is refused, naming the value.
  call check(proxy_wait(thread, ticket, -5_int64) == PROXY_ERROR_ARGUMENT, "negative timeout")
  call check(proxy_last_error() == "proxy_wait: timeout_ms is -5 (PROXY_WAIT_DEFAULT_TIMEOUT, -1, or a count of " // &
             "milliseconds >= 0)", "negative timeout message")
  ! An allreduce whose count differs between the ranks is refused at commit on every rank (it ran before, with
  ! a wrong sum on some ranks).
  call ok(proxy_plan_spec_create("uneven", spec), "create uneven")
  call ok(proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, terms, total, merge(1, 2, rank == 0), MPI_INTEGER8, &
                                    MPI_SUM), "allreduce uneven")
  call check(proxy_commit(thread, spec, refused) == PROXY_ERROR, "uneven allreduce refused")
  write (expected, '(a, i0, a)') "plan 'uneven': allreduce element 0 has 8 bytes on some ranks and 16 on others " // &
    "(here count ", merge(1, 2, rank == 0), " of 8 bytes): every rank must give the same count and type"
  call check(proxy_last_error() == trim(expected), "uneven allreduce message")
  call ok(proxy_plan_spec_free(spec), "free uneven")

  ! Left to right: (1e16 + 1) + 1 is 1e16 on every rank (ties to even), so the sum is exactly size * 1e16.
  terms = [1.0e16_real64, 1.0_real64, 1.0_real64]
  do t = 1, 3
    term_pointers(t) = c_loc(terms(t))
  end do
  sum_last = -1.0_real64
  call ok(proxy_plan_spec_create("ordered", spec), "create ordered")
  call ok(proxy_plan_spec_reduce_contributions(spec, MPI_COMM_WORLD, size - 1, term_pointers, sum_last, 1, &
                                               MPI_DOUBLE_PRECISION, MPI_SUM), "reduce_contributions")
  call ok(proxy_commit(thread, spec, ordered), "commit ordered")
  call ok(proxy_plan_spec_free(spec), "free ordered")
  call ok(proxy_start(thread, ordered, ticket), "start ordered")
  call ok(proxy_wait(thread, ticket), "wait ordered")
  if (rank == size - 1) then
    call check(sum_last(1) == size * 1.0e16_real64, "reduce_contributions in order")
  else
    call check(sum_last(1) == -1.0_real64, "a reduce's result is the root's alone")
  end if

  ! A null contribution is refused at commit with the C++ message.
  call ok(proxy_plan_spec_create("dot", spec), "create refused")
  call ok(proxy_plan_spec_allreduce_contributions(spec, MPI_COMM_WORLD, [term_pointers(1), c_null_ptr], sum_last, 1, &
                                                  MPI_DOUBLE_PRECISION, MPI_SUM), "allreduce_contributions")
  call check(proxy_commit(thread, spec, refused) == PROXY_ERROR, "refused commit")
  call check(proxy_last_error() == "plan 'dot': allreduce element 0 has a null contribution 1 for count 1", &
             "refusal message")
  call ok(proxy_plan_spec_free(spec), "free refused")

  ! A datatype never committed is refused at commit, naming the transfer and its peer (a CommError of "epoch 0"
  ! before).
  call ok(proxy_plan_spec_create("pairs", spec), "create pairs")
  call ok(proxy_plan_spec_send(spec, modulo(rank + 1, size), 2, terms, 1, uncommitted), "send pairs")
  call check(proxy_commit(thread, spec, refused) == PROXY_ERROR, "uncommitted datatype refused")
  write (expected, '(a, i0, a)') "plan 'pairs': transfer 0 (send to rank ", modulo(rank + 1, size), &
    " tag 2) has a datatype that is not committed: call MPI_Type_commit on it before committing the plan"
  call check(proxy_last_error() == trim(expected), "uncommitted datatype message")
  call ok(proxy_plan_spec_free(spec), "free pairs")

  ! A failed call leaves its outputs empty: a failed start's ticket is refused by a wait, a null thread's
  ! communicator is MPI_COMM_NULL and its rank MPI_UNDEFINED.
  call check(proxy_start(thread, refused, ticket) == PROXY_ERROR_ARGUMENT, "start of a refused plan")
  call check(proxy_wait(thread, ticket) == PROXY_ERROR_ARGUMENT, "wait on a failed start's ticket")
  call check(proxy_last_error() == "proxy_wait: ticket.plan is NULL", "failed start's ticket message")
  comm = MPI_COMM_WORLD
  call check(proxy_thread_comm(no_thread, comm) == PROXY_ERROR_ARGUMENT, "comm of no thread")
  call check(comm == MPI_COMM_NULL, "comm of no thread is MPI_COMM_NULL")
  t = 7
  call check(proxy_thread_rank(no_thread, t) == PROXY_ERROR_ARGUMENT .and. t == MPI_UNDEFINED, "rank of no thread")

  call ok(proxy_plan_free(dot), "free dot plan")
  call ok(proxy_plan_free(ordered), "free ordered plan")
  call ok(proxy_thread_free(thread), "proxy_thread_free")
  call MPI_Type_free(uncommitted)
  if (rank == 0) write (*, '(a, i0, a, i0, a)') "test_fortran_api: ", checks, " checks passed on ", size, " ranks"
  status = proxy_environment_free(env)

contains

  ! The sum over ranks r and threads t of 1000 (r + 1) + 10 t + epoch.
  integer(int64) function expected_total(epoch)
    integer, intent(in) :: epoch
    expected_total = 1000_int64 * threads * size * (size + 1) / 2 + 10_int64 * size * threads * (threads - 1) / 2 &
                     + int(size, int64) * threads * epoch
  end function

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) call proxy_abort("test_fortran_api: check failed: " // what // " (last error: '" // &
                                          proxy_last_error() // "')", 1)
    checks = checks + 1
  end subroutine

  subroutine ok(status, what)
    integer, intent(in) :: status
    character(*), intent(in) :: what
    call check(status == PROXY_SUCCESS, what)
  end subroutine
end program
