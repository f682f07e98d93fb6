// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * testinit: the /sbin/init of every boot-test root disk.
 *
 * It lives only on the root disk, never in an initramfs, so seeing its
 * marker on the serial console proves the boot reached the real root.  It
 * reports what the initramfs handed over (argv, cmdline, mounts, whether /
 * is writable, the environment) and powers the machine off, so QEMU exits
 * by itself.  tests/boot/run.py parses the lines it prints.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MARKER "UNIRAMFS-TEST-MARKER"

static FILE *out;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("TESTINIT: ", out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	fflush(out);
	va_end(ap);
}

/* Print every line of a file, each prefixed with its tag. */
static void dump(const char *tag, const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (!f) {
		say("%s: cannot open %s: %s", tag, path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		say("%s: %s", tag, line);
	}
	fclose(f);
}

/*
 * The kernel gives init fds 0-2 on /dev/console only if it could open it
 * in the initramfs; an init that exec'd us without them must not leave us
 * mute.  Prefer a fresh /dev/console, mounting devtmpfs if /dev is empty.
 */
static void open_console(void)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		mkdir("/dev", 0755);
		if (mount("devtmpfs", "/dev", "devtmpfs", 0, "mode=0755") == 0)
			fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out)
		out = stdout;
}

static void ensure_proc(void)
{
	struct stat st;

	if (stat("/proc/self/mounts", &st) == 0) {
		say("proc=inherited");
		return;
	}
	mkdir("/proc", 0555);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
		say("proc=mounted-by-testinit");
	else
		say("proc=unavailable: %s", strerror(errno));
}

static const char *resumed = "no";

/* A cmdline word "KEY=VALUE": the value (static), or NULL. */
static const char *cmdline_value(const char *key)
{
	static char buf[4096], val[256];
	size_t n = strlen(key);
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return NULL;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return NULL;
	buf[len] = '\0';
	for (char *w = strtok(buf, " \n"); w; w = strtok(NULL, " \n")) {
		if (!strncmp(w, key, n) && w[n] == '=') {
			snprintf(val, sizeof(val), "%s", w + n + 1);
			return val;
		}
	}
	return NULL;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * testinit.hibernate=SWAPDEV: keep a random token in this process's
 * memory only, hibernate to SWAPDEV, and when the write to
 * /sys/power/state returns (the machine was resumed from the image),
 * print the same token: only the process that hibernated knows it.  The
 * boot_id is the kernel's, fixed for one boot: the same after a resume,
 * new after a fresh boot.
 */
static void maybe_hibernate(void)
{
	const char *dev = cmdline_value("testinit.hibernate");
	unsigned char rnd[16];
	char token[33], boot_id[64] = "?";
	struct stat st;
	int fd;

	if (!dev)
		return;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		say("hibernation failed: getrandom: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(token + 2 * i, 3, "%02x", rnd[i]);
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, boot_id, sizeof(boot_id) - 1);
		boot_id[n > 0 ? n : 0] = '\0';
		boot_id[strcspn(boot_id, "\n")] = '\0';
		close(fd);
	}
	say("TOKEN=%s pid=%d boot_id=%s", token, (int)getpid(), boot_id);
	if (swapon(dev, 0) < 0) {
		say("hibernation failed: swapon %s: %s", dev, strerror(errno));
		return;
	}
	/* A swap file: the kernel hibernates only to a configured device
	 * (left alone, it takes the first swap partition); tell it the
	 * file's filesystem and the page its header is on. */
	if (stat(dev, &st) == 0 && S_ISREG(st.st_mode)) {
		int blk = 0;
		long page = sysconf(_SC_PAGESIZE);
		char num[64];

		fd = open(dev, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, FIBMAP, &blk) < 0) {
			say("hibernation failed: FIBMAP %s: %s", dev, strerror(errno));
			return;
		}
		close(fd);
		snprintf(num, sizeof(num), "%lld", (long long)blk * st.st_blksize / page);
		write_str("/sys/power/resume_offset", num);
		snprintf(num, sizeof(num), "%u:%u", major(st.st_dev), minor(st.st_dev));
		if (write_str("/sys/power/resume", num) < 0)
			say("cannot set /sys/power/resume to %s: %s", num, strerror(errno));
		say("swap file %s: resume=%s, its header in block %d", dev, num, blk);
	}
	/* Power off once the image is written (no ACPI S4 needed). */
	write_str("/sys/power/disk", "shutdown");
	say("hibernating to %s", dev);
	sync();
	if (write_str("/sys/power/state", "disk") < 0) {
		say("hibernation failed: /sys/power/state: %s", strerror(errno));
		return;
	}
	resumed = "yes";
	say("RESUMED TOKEN=%s pid=%d boot_id=%s", token, (int)getpid(), boot_id);
}

/* /run's top entries, and what a hook may have left there. */
static void report_run(void)
{
	struct dirent **ents;
	int n = scandir("/run", &ents, NULL, alphasort);
	struct stat st;

	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.')
			say("run: %s", ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	if (stat("/run/hook-ran", &st) == 0)
		dump("hook-ran", "/run/hook-ran");
}

/* The last "/" line of /proc/self/mounts is the root we actually see. */
static void report_root(void)
{
	char line[1024], src[256], dir[256], type[64], opts[512];
	char found[1024] = "";
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s %511s", src, dir, type, opts) == 4 &&
		    strcmp(dir, "/") == 0)
			snprintf(found, sizeof(found), "%s %s %s", src, type, opts);
	}
	fclose(f);
	say("root-mount=%s", found[0] ? found : "none");
}

static void report_writable(void)
{
	const char *probe = "/.testinit-rw-probe";
	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		say("root-writable=no (%s)", strerror(errno));
		return;
	}
	close(fd);
	unlink(probe);
	say("root-writable=yes");
}

/* Each testinit.show=PATH on the command line: that file, so a scenario
 * can see what the kernel says (a module's parameters) in TESTINIT lines
 * without a program of its own. */
static void show_asked(void)
{
	char cmdline[4096], tag[512];
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n = f ? fread(cmdline, 1, sizeof(cmdline) - 1, f) : 0;

	if (f)
		fclose(f);
	cmdline[n] = '\0';
	for (char *save = NULL, *w = strtok_r(cmdline, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (strncmp(w, "testinit.show=", 14) != 0)
			continue;
		snprintf(tag, sizeof(tag), "show %s", w + 14);
		dump(tag, w + 14);
	}
}

/* testinit.mark=PATH: write a line to PATH and sync it, so a scenario
 * that boots the same disks again (scenarios_ovlpersist) finds it there
 * through testinit.show=PATH. */
static void mark_asked(void)
{
	char cmdline[4096];
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n = f ? fread(cmdline, 1, sizeof(cmdline) - 1, f) : 0;

	if (f)
		fclose(f);
	cmdline[n] = '\0';
	for (char *save = NULL, *w = strtok_r(cmdline, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		int fd;

		if (strncmp(w, "testinit.mark=", 14) != 0)
			continue;
		fd = open(w + 14, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || dprintf(fd, "written by an earlier boot\n") < 0 || fsync(fd) < 0)
			say("mark %s failed: %s", w + 14, strerror(errno));
		else
			say("marked %s", w + 14);
		if (fd >= 0)
			close(fd);
	}
}

int main(int argc, char **argv, char **envp)
{
	char args[2048] = "";
	size_t len = 0;
	const char *ts;

	open_console();
	maybe_hibernate();
	for (int i = 0; i < argc && len < sizeof(args); i++)
		len += snprintf(args + len, sizeof(args) - len, "%s%s", i ? " " : "", argv[i]);
	fprintf(out, "%s pid=%d argc=%d argv=[%s]\n", MARKER, (int)getpid(), argc, args);
	fflush(out);

	ensure_proc();
	dump("cmdline", "/proc/cmdline");
	report_root();
	dump("mounts", "/proc/self/mounts");
	dump("partitions", "/proc/partitions");
	dump("uptime", "/proc/uptime");
	report_writable();
	say("resumed=%s", resumed);
	report_run();
	/* uniramfs-init leaves its per-stage timings here; other
	 * initramfs generators do not (a "cannot open" line then). */
	dump("timings", "/run/uniramfs/timings");
	show_asked();
	mark_asked();
	ts = getenv("RD_TIMESTAMP");
	say("RD_TIMESTAMP=%s", ts ? ts : "(unset)");
	for (char **e = envp; *e; e++)
		say("env: %s", *e);
	fprintf(out, "UNIRAMFS-TEST-END pid=%d\n", (int)getpid());
	fflush(out);

	sync();
	if (getpid() == 1) {
		reboot(RB_POWER_OFF);
		/* Still here: powering off failed; never let PID 1 exit. */
		say("reboot(RB_POWER_OFF) failed: %s", strerror(errno));
		for (;;)
			pause();
	}
	return 0;
}
