! proxy_thread_free from an OpenMP region where threads that use the proxy may still run, one case per argument,
! each a process of its own, run on real ranks by CTest (label `faults`): the C++ ~ProxyThread's check
! (tests/core/lifecycle_misuse.cpp) reached through `use proxy`, which keeps its line and its end of the job:
!   destroyed-elsewhere  freed by thread 1 of an OpenMP parallel region of 2 threads, not the creator: one line,
!                        the job ends
!   destroyed-in-region  freed by the creating thread (the master) inside that region: one line, the job ends
! A case whose free comes back prints what it returned and exits 0 (so its test fails).
program lifecycle_misuse_fortran
  use mpi_f08, only: MPI_COMM_WORLD
  use omp_lib, only: omp_get_thread_num
  use proxy
  implicit none
  type(proxy_environment) :: env
  type(proxy_thread) :: thread
  character(64) :: which
  integer :: freer, status

  call get_command_argument(1, which)
  select case (which)
  case ("destroyed-elsewhere")
    freer = 1
  case ("destroyed-in-region")
    freer = 0
  case default
    print '(3a)', "lifecycle_misuse_fortran: unknown case '", trim(which), "'"
    stop 2
  end select
  if (proxy_environment_create(env) /= PROXY_SUCCESS) stop 2
  if (proxy_thread_create(MPI_COMM_WORLD, thread) /= PROXY_SUCCESS) then
    print '(2a)', "lifecycle_misuse_fortran: error: ", proxy_last_error()
    stop 1
  end if
  status = PROXY_SUCCESS
  !$omp parallel num_threads(2)
  if (omp_get_thread_num() == freer) status = proxy_thread_free(thread)  ! ends the job
  !$omp end parallel
  print '(a, i0, a)', "lifecycle_misuse_fortran: no error (status ", status, ")"
  status = proxy_environment_free(env)
end program lifecycle_misuse_fortran
