// SPDX-License-Identifier: GPL-2.0-or-later
/* layout.h: the lists both programs walk agree with each other. */
#include "layout.h"
#include "test.h"
#include "util.h"

/* The tools are looked for in LAYOUT_TOOL_DIRS and run with PATH
 * LAYOUT_TOOL_PATH: one search order, written twice only because C
 * cannot join a list into a string. */
static void test_tool_path_is_tool_dirs(void)
{
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };
	struct strv path = { 0 };

	strv_split(&path, LAYOUT_TOOL_PATH, ":");
	CHECK(path.n == ARRAY_SIZE(dirs));
	for (size_t i = 0; i < path.n && i < ARRAY_SIZE(dirs); i++)
		CHECK_STR(path.v[i], dirs[i]);
	strv_free(&path);
}

int main(void)
{
	RUN(test_tool_path_is_tool_dirs);
	return test_done();
}
