/* Strict C11 compile check of every public header (see all_headers_body.h). */
#include "all_headers_body.h"

int main(void) { return openhtp_use_all_init_macros() == 0 ? 1 : 0; }
