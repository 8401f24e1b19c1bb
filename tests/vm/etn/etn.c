// SPDX-License-Identifier: GPL-2.0
/*
 * etn: the VM tests' own module, a misc device /dev/etn that takes every
 * write whole and moves the file position past it, nothing more. Its write
 * operation is the module function the tests trace (tests/vm/module-guest.sh):
 * its count and *pos are known to the byte for every write the test makes.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

/*
 * noinline: the address taken for file_operations already keeps the
 * function out of line; this keeps gcc from cloning it into a .isra or
 * .constprop symbol, which would leave no etn_write in kallsyms to probe.
 */
static noinline ssize_t etn_write(struct file *file, const char __user *buf, size_t count,
				  loff_t *pos)
{
	*pos += count;
	return count;
}

static const struct file_operations etn_fops = {
	.owner = THIS_MODULE,
	.write = etn_write,
	/* dd's seek= lseeks the device: the offsets the tests expect in *pos */
	.llseek = default_llseek,
};

static struct miscdevice etn_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "etn",
	.fops = &etn_fops,
	.mode = 0666,
};

/*
 * warn=1: a WARNING at load and nothing else, tests/vm/test.sh's positive
 * control: a guest kernel's WARNING must stop its boot and fail the run.
 */
static bool warn;
module_param(warn, bool, 0444);

static int __init etn_init(void)
{
	WARN(warn, "etn: warn=1, the WARNING the VM tests' positive control asks for\n");
	return misc_register(&etn_dev);
}

static void __exit etn_exit(void)
{
	misc_deregister(&etn_dev);
}

module_init(etn_init);
module_exit(etn_exit);
MODULE_DESCRIPTION("kptrace's test device: a write that advances the position");
MODULE_LICENSE("GPL");
