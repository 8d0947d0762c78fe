! An outside Fortran program on the installed package (`use proxy`, mpi_f08 handles): a ring of ranks and an
! allreduce of rank + 1 through one plan. Prints what it got; exit 1 when a value is wrong.
program fortran_consumer
  use, intrinsic :: iso_fortran_env, only: error_unit
  use mpi_f08, only: MPI_COMM_WORLD, MPI_INTEGER, MPI_SUM
  use proxy
  implicit none
  type(proxy_environment) :: env
  type(proxy_thread) :: thread
  type(proxy_plan_spec) :: spec
  type(proxy_plan) :: plan
  type(proxy_ticket) :: ticket
  integer :: rank, size, status
  integer, asynchronous :: mine(1), left(1), contribution(1), total(1)

  if (proxy_environment_create(env) /= PROXY_SUCCESS) then
    write (error_unit, '(a)') "fortran-consumer: error: " // proxy_last_error()
    stop 1
  end if
  status = proxy_environment_rank(env, rank)
  status = proxy_environment_size(env, size)
  mine = rank
  left = -1
  contribution = rank + 1
  total = 0
  if (proxy_thread_create(MPI_COMM_WORLD, thread) /= PROXY_SUCCESS) call proxy_abort(proxy_last_error(), 1)
  if (proxy_plan_spec_create("ring", spec) /= PROXY_SUCCESS) call proxy_abort(proxy_last_error(), 1)
  if (proxy_plan_spec_send(spec, mod(rank + 1, size), 0, mine, 1, MPI_INTEGER) /= PROXY_SUCCESS .or. &
      proxy_plan_spec_recv(spec, mod(rank + size - 1, size), 0, left, 1, MPI_INTEGER) /= PROXY_SUCCESS .or. &
      proxy_plan_spec_allreduce(spec, MPI_COMM_WORLD, contribution, total, 1, MPI_INTEGER, MPI_SUM) /= PROXY_SUCCESS &
      .or. proxy_commit(thread, spec, plan) /= PROXY_SUCCESS .or. proxy_start(thread, plan, ticket) /= PROXY_SUCCESS &
      .or. proxy_wait(thread, ticket) /= PROXY_SUCCESS) then
    call proxy_abort(proxy_last_error(), 1)
  end if
  write (*, '(a, i0, a, i0, a, i0)') "fortran-consumer: rank ", rank, " got ", left(1), " from the left, sum ", total(1)
  status = proxy_plan_free(plan)
  status = proxy_plan_spec_free(spec)
  status = proxy_thread_free(thread)
  status = proxy_environment_free(env)
  if (left(1) /= mod(rank + size - 1, size) .or. total(1) /= size * (size + 1) / 2) stop 1
end program
