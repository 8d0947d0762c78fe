! docs/c-fortran.md's dot product over OpenMP threads in Fortran (tests/c/test_fortran_api.f90 runs one): the
! modules, the spec it adds its element to, the number of threads. Compiled, not run.
subroutine example(spec)
  use iso_c_binding
  use iso_fortran_env, only: real64
  use mpi_f08
  use proxy
  implicit none
  type(proxy_plan_spec), intent(in) :: spec
  integer, parameter :: THREADS = 4
  integer :: t, status
  ! @example@
end subroutine
