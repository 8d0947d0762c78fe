// A whole program shown in the docs (docs/porting.md, step 1): the header it leaves out, then the block.
#include <proxy/proxy.hpp>

// @example@
