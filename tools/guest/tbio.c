// SPDX-License-Identifier: GPL-2.0-only
/*
 * tbio: one write(2), read(2) or init_module(2), reporting the exact errno,
 * which the shell's own redirections and utilities hide or paraphrase.
 *
 *	tbio [-f N] write FILE DATA	write DATA (no newline added) in one call
 *	tbio [-f N] read FILE		read up to 4 KiB in one call
 *	tbio [-f N] insmod FILE [PARAMS]	load the module in FILE, once
 *	tbio hog CPU SECONDS		busy-loop on CPU at SCHED_RR 1
 *	tbio setsched PID fifo|other PRIO	set a task's policy
 *
 * Prints OK or the errno's name (EINVAL, ...). With -f N, the N-th fault
 * injection point the call reaches fails (/proc/thread-self/fail-nth), and
 * a second word says whether it was reached: "injected" or "missed". The
 * file is opened and read before arming, so only the call itself counts.
 * insmod makes one init_module(2) call: busybox's insmod makes another after
 * a failed finit_module(2), so a module's init that fails runs twice.
 * SIGINT (Ctrl-C) interrupts the call rather than ending tbio, so that the
 * errno it returned is printed; a shell's background job ignored it.
 * Exits 0 whatever the call returned; 2 on bad usage or set-up.
 *
 * hog prints "running" once it runs on CPU as a real-time task: from then
 * on, with RT throttling and the fair server off, no task of the fair
 * class runs there. Round-robin at the lowest real-time priority, so that
 * the kernel's own real-time threads still get the CPU (on PREEMPT_RT,
 * RCU's rcuc and ktimers run at SCHED_FIFO 1: starved, they would stop
 * RCU grace periods everywhere). It stops by itself after SECONDS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char *slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;

	if (fstat(fd, &st))
		return NULL;
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf)
		return NULL;
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		return NULL;
	}
	*len = st.st_size;
	return buf;
}

/* no SA_RESTART: the interrupted call returns EINTR */
static void on_sigint(int sig)
{
	(void)sig;
}

static int bad_usage(void)
{
	fputs("tbio [-f N] write FILE DATA | read FILE | insmod FILE [PARAMS]\n"
	      "tbio hog CPU SECONDS | setsched PID fifo|other PRIO\n", stderr);
	return 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* busybox has no chrt: a kernel thread's policy, for the held CPU's own */
static int set_policy(int pid, const char *policy, int prio)
{
	struct sched_param param = { .sched_priority = prio };
	int fifo = !strcmp(policy, "fifo");

	if (!fifo && strcmp(policy, "other"))
		return bad_usage();
	if (sched_setscheduler(pid, fifo ? SCHED_FIFO : SCHED_OTHER, &param)) {
		perror("tbio: sched_setscheduler");
		return 2;
	}
	return 0;
}

/*
 * The hog's spin-wait hint, the instruction tools/arch/ARCH.conf names
 * (TB_GUEST_SPIN_HINT). Under QEMU's TCG with one host thread for all vCPUs
 * (tools/check.sh boots its suites so), a vCPU that loops without one runs
 * for a whole time slice before the others get theirs, and the held-run
 * tests' shell crawls; x86's pause and arm64's yield hand the host thread
 * on to the next vCPU at once.
 */
static inline void spin_hint(void)
{
	__asm__ __volatile__(TB_SPIN_HINT);
}

static int hog_cpu(int cpu, int seconds)
{
	struct sched_param param = { .sched_priority = 1 };
	double end = now() + seconds;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_RR, &param)) {
		perror("tbio: setting up the hog");
		return 2;
	}
	printf("running\n");
	fflush(stdout);
	while (now() < end)
		spin_hint();
	return 0;
}

int main(int argc, char **argv)
{
	char buf[4096], nth[16] = "", left[16] = "";
	int fd, nth_fd = -1, mode = 0;
	size_t len = 0;
	char *image = NULL;
	ssize_t ret;

	if (argc > 3 && !strcmp(argv[1], "-f")) {
		snprintf(nth, sizeof(nth), "%s", argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc == 4 && !*nth && !strcmp(argv[1], "hog"))
		return hog_cpu(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && !*nth && !strcmp(argv[1], "setsched"))
		return set_policy(atoi(argv[2]), argv[3], atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "write"))
		mode = 'w';
	else if (argc == 3 && !strcmp(argv[1], "read"))
		mode = 'r';
	else if ((argc == 3 || argc == 4) && !strcmp(argv[1], "insmod"))
		mode = 'i';
	else
		return bad_usage();

	fd = open(argv[2], mode == 'w' ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return 2;
	}
	if (mode == 'i') {
		image = slurp(fd, &len);
		if (!image) {
			perror("tbio: reading the module");
			return 2;
		}
	}
	struct sigaction sa = { .sa_handler = on_sigint };

	if (sigaction(SIGINT, &sa, NULL)) {
		perror("tbio: sigaction");
		return 2;
	}
	if (*nth) {
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (nth_fd < 0 || write(nth_fd, nth, strlen(nth)) < 0) {
			perror("tbio: arming fail-nth");
			return 2;
		}
	}

	if (mode == 'w')
		ret = write(fd, argv[3], strlen(argv[3]));
	else if (mode == 'r')
		ret = read(fd, buf, sizeof(buf));
	else
		ret = syscall(SYS_init_module, image, len,
			      argc == 4 ? argv[3] : "");
	printf("%s", ret < 0 ? strerrorname_np(errno) : "OK");

	/*
	 * 0 once the armed fault was injected, what is left otherwise; then
	 * disarm, or printing the result could be what fails.
	 */
	if (nth_fd >= 0) {
		if (pread(nth_fd, left, sizeof(left) - 1, 0) < 0 ||
		    pwrite(nth_fd, "0", 1, 0) < 0) {
			perror("tbio: reading fail-nth");
			return 2;
		}
		printf(" %s", atoi(left) ? "missed" : "injected");
	}
	printf("\n");
	free(image);
	close(fd);
	return 0;
}
