# find_package(tracekit): the imported target tracekit::tracekit, the shared
# library with its headers (installed by `make install`)
include("${CMAKE_CURRENT_LIST_DIR}/tracekitTargets.cmake")
