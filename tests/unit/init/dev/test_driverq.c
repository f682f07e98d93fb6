// SPDX-License-Identifier: GPL-2.0-or-later
/* The driver queue (dev/driverq.c): before a question only what a
 * keyboard, a serial port and (with the splash) a screen need loads, in
 * the queue's order; the IDE controller and the rest stay queued for the
 * loop's idle work.  No module index here (ml NULL): a load finds no
 * module, and the queue's no-driver list shows what was loaded, in order. */
#include <string.h>

#include "fake_ops.h"
#include "init/dev/driverq.h"
#include "test.h"

#define IDE "pci:v00008086d00007010sv00001AF4sd00001100bc01sc01i80"
#define VGA "pci:v00001234d00001111sv00001AF4sd00001100bc03sc00i00"
#define XHCI "pci:v00001B36d0000000Dsv00001AF4sd00001100bc0Csc03i30"
#define SERIAL "pci:v00001B36d00000002sv00001AF4sd00001100bc07sc00i02"
#define AUDIO "pci:v00008086d00002668sv00001AF4sd00001100bc04sc03i00"
#define KBD "usb:v0627p0001d0000dc00dsc00dp00ic03isc01ip01in00"
#define PS2 "acpi:PNP0303:"
#define VINPUT "virtio:d00000012v00001AF4"
#define VGPU "virtio:d00000010v00001AF4"

static const char *const seen[] = { IDE, VGA, AUDIO, XHCI, KBD, SERIAL, PS2, VINPUT, VGPU };

static bool queued(const struct driverq *q, const char *m)
{
	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->v[i].modalias, m))
			return true;
	return false;
}

static void fill(struct driverq *q, struct fake_ops *f)
{
	driverq_init(q, &f->ops);
	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		driverq_push(q, seen[i], "/devices/x");
}

static void test_question_no_display(void)
{
	struct fake_ops *f = fake_ops_new();
	struct driverq q;

	fill(&q, f);
	driverq_load_for_question(&q, false);
	/* the USB host first (class 1), then the rest as seen */
	CHECK(q.nnodrv == 5);
	CHECK_STR(q.nodrv[0].modalias, XHCI);
	CHECK_STR(q.nodrv[1].modalias, KBD);
	CHECK_STR(q.nodrv[2].modalias, SERIAL);
	CHECK_STR(q.nodrv[3].modalias, PS2);
	CHECK_STR(q.nodrv[4].modalias, VINPUT);
	CHECK(q.n == 4);
	CHECK(queued(&q, IDE) && queued(&q, VGA) && queued(&q, AUDIO) && queued(&q, VGPU));
	driverq_free(&q);
	fake_ops_free(f);
}

static void test_question_display(void)
{
	struct fake_ops *f = fake_ops_new();
	struct driverq q;

	fill(&q, f);
	driverq_load_for_question(&q, true);
	CHECK(q.nnodrv == 7);
	CHECK(q.n == 2);
	CHECK(queued(&q, IDE) && queued(&q, AUDIO));
	CHECK(!queued(&q, VGA) && !queued(&q, VGPU));
	/* the rest, for the loop's idle work: IDE (class 1) first */
	CHECK(driverq_load_next(&q));
	CHECK_STR(q.nodrv[7].modalias, IDE);
	CHECK(driverq_load_next(&q));
	CHECK(!driverq_load_next(&q));
	driverq_free(&q);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_question_no_display);
	RUN(test_question_display);
	return test_done();
}
