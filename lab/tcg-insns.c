// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for lab/bench --only insns: counts the guest kernel's translated blocks and
 * their instructions as they execute, between two files the guest writes. Under TCG the time a
 * guest takes is mostly the instructions and blocks it executes, and these counts, unlike times,
 * barely move between runs.
 *
 *   -plugin tcg-insns.so,dir=DIR
 *
 * DIR/insns-reset (the guest creates it): every count goes to 0, and the file is removed.
 * DIR/insns-dump-NAME: DIR/insns-out-NAME is written, one line per executed block
 * ("ADDRESS INSTRUCTIONS EXECUTIONS", hex, decimal, decimal), and the trigger is removed.
 * The guest waits for the trigger to go away. Only kernel addresses are counted.
 *
 * QEMU's plugin header is not packaged by Debian; the few declarations below are the plugin
 * API's (include/qemu/qemu-plugin.h, API version 7 as QEMU 11.1 requires).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
} qemu_info_t;
/*
 * The translation callback. QEMU 11.1 as Debian builds it passes the block in the first
 * argument (read in its qemu_plugin_tb_trans_cb); the header documents (id, tb). The block is
 * checked below: a block of no instruction, or of more than TCG puts in one, fails the load.
 */
typedef void (*trans_cb_t)(struct qemu_plugin_tb *tb, qemu_plugin_id_t id);
typedef void (*exec_cb_t)(unsigned int vcpu, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, exec_cb_t cb, int flags,
					  void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 7;

/* One translation of a block; a block translated again gets a second record. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t execs;
};

#define MAX_BLOCKS (8u << 20)
#define KERNEL_BASE 0xffff800000000000ull
#define MAX_TB_INSNS 512

static struct block *blocks;
static uint32_t nblocks;
static const char *dir;
static bool bad_block;

static void on_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	__atomic_fetch_add(&b->execs, 1, __ATOMIC_RELAXED);
}

static void on_trans(struct qemu_plugin_tb *tb, qemu_plugin_id_t id)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint32_t i;

	(void)id;
	if (n == 0 || n > MAX_TB_INSNS) {
		bad_block = true;
		return;
	}
	if (va < KERNEL_BASE)
		return;
	i = __atomic_fetch_add(&nblocks, 1, __ATOMIC_RELAXED);
	if (i >= MAX_BLOCKS)
		return;
	blocks[i].vaddr = va;
	blocks[i].insns = n;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, 0, &blocks[i]);
}

static uint32_t used(void)
{
	uint32_t n = __atomic_load_n(&nblocks, __ATOMIC_RELAXED);

	return n < MAX_BLOCKS ? n : MAX_BLOCKS;
}

static void dump(const char *name)
{
	char path[4096], tmp[4200];
	uint32_t i, n = used();
	FILE *f;

	snprintf(path, sizeof(path), "%s/insns-out-%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	if (bad_block)
		fprintf(f, "# error: a translated block of no instruction or of more than %d\n",
			MAX_TB_INSNS);
	if (n == MAX_BLOCKS)
		fprintf(f, "# error: more than %u translations, the rest not counted\n", MAX_BLOCKS);
	for (i = 0; i < n; i++) {
		uint64_t e = __atomic_load_n(&blocks[i].execs, __ATOMIC_RELAXED);

		if (e)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)blocks[i].vaddr,
				(unsigned long long)blocks[i].insns, (unsigned long long)e);
	}
	fclose(f);
	rename(tmp, path);
}

static void *watch(void *arg)
{
	char path[4096];

	(void)arg;
	for (;;) {
		struct dirent *e;
		DIR *d;

		usleep(20000);
		snprintf(path, sizeof(path), "%s/insns-reset", dir);
		if (access(path, F_OK) == 0) {
			uint32_t i, n = used();

			for (i = 0; i < n; i++)
				__atomic_store_n(&blocks[i].execs, 0, __ATOMIC_RELAXED);
			unlink(path);
		}
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "insns-dump-", 11))
				continue;
			dump(e->d_name + 11);
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	return NULL;
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
							       const qemu_info_t *info,
							       int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			dir = argv[i] + 4;
	if (!dir) {
		fprintf(stderr, "tcg-insns: no dir= argument\n");
		return 1;
	}
	blocks = calloc(MAX_BLOCKS, sizeof(*blocks));
	if (!blocks || pthread_create(&t, NULL, watch, NULL))
		return 1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
