/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Functions that must not be used: unbounded copies, hidden global state and
 * conversions that cannot report errors. Including this header last turns
 * any use into a compile error. Use strbuf, snprintf, strtoll and friends.
 */
#ifndef ECHELON_BASE_BANNED_H
#define ECHELON_BASE_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_echelon

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atoll
#define atoll(x) BANNED(atoll)
#undef atof
#define atof(x) BANNED(atof)
#undef gets
#define gets(x) BANNED(gets)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)

#endif
