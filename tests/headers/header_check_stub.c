/* Non-empty translation unit for the per-header checks (an empty one is
 * rejected by -pedantic in C). The header under test is added with -include. */
typedef int openhtp_header_check_stub;
