# SPDX-License-Identifier: Apache-2.0
# Embed a file in the program as a C array: cmake -DIN=FILE -DOUT=FILE.c
# -DNAME=symbol -P embed.cmake writes `const unsigned char NAME[]` (the
# bytes and a NUL) and `const size_t NAME_len` (without the NUL).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp"
	"/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n"
	"#include \"serve/serve_dashboard.h\"\n"
	"const unsigned char ${NAME}[] = {\n${bytes}0x00 };\n"
	"const size_t ${NAME}_len = ${len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
