# durations.cmake - what each test takes, in seconds, on an idle 2-core
# machine of the project's slower kind (tests/CMakeLists.txt: the order
# ctest starts them in, and their timeouts). DDZ_SECONDS_<test> for the
# Release build, DDZ_SECONDS_SAN_<test> for the sanitizer build, the test's
# name with "/" as "_". Measured with tests/run.sh, which prints the ten
# slowest of each build at its end; update a figure when a test's time
# changes by more than half.
set(DDZ_SECONDS_web_test_browser 300)
set(DDZ_SECONDS_SAN_web_test_browser 400)
set(DDZ_SECONDS_service_test_botzone 100)
set(DDZ_SECONDS_SAN_service_test_botzone 200)
