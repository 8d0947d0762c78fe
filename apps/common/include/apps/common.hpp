// Umbrella header for the drivers' shared support (target proxy_apps_common, namespace apps).
#pragma once

#include "apps/agreed_parse.hpp"
#include "apps/driver_main.hpp"
#include "apps/environment_variables.hpp"
#include "apps/exit_codes.hpp"
#include "apps/ideal_proxy.hpp"
#include "apps/options.hpp"
#include "apps/output_file.hpp"
#include "apps/parse.hpp"
#include "apps/program_exit.hpp"
#include "apps/provenance.hpp"
#include "apps/run_record.hpp"
#include "apps/timing_table.hpp"
#include "apps/usage_error.hpp"
