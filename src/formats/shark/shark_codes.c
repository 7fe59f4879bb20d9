/*
 * shark_codes.c - the names of the FTrace event codes, from the source's
 * FTrace.h (specs/shark-ftrace-reference.md 1.2).  The low nibble is the
 * family, the high nibble the event within it.
 */
#include "shark.h"

static const char *const names[256] = {
	[0x10] = "cycles_per_msec",  [0x20] = "trace_start",
	[0x30] = "trace_stop",       [0x40] = "blackout_start",
	[0x50] = "blackout_end",     [0x60] = "id",
	[0x70] = "numevents",
	[0x01] = "ipoint",
	[0x02] = "task_create",      [0x12] = "task_activate",
	[0x22] = "task_dispatch",    [0x32] = "task_epilogue",
	[0x42] = "task_end",         [0x52] = "task_begin_cycle",
	[0x62] = "task_end_cycle",   [0x72] = "task_sleep",
	[0x82] = "task_schedule",    [0x92] = "task_timer",
	[0xA2] = "task_disable",     [0xB2] = "task_deadline_miss",
	[0xC2] = "task_wcet_violation",
	[0x03] = "interrupt_start",  [0x13] = "interrupt_end",
	[0x23] = "interrupt_hit",    [0x33] = "interrupt_count",
	[0x43] = "set_mutex_unlock", /* the manual's value; the source has 0x36 */
	[0x04] = "to_real_mode",     [0x14] = "to_protected_mode",
	[0x24] = "CLI",              [0x34] = "STI",
	[0x05] = "set_priority",     [0x15] = "context_switch",
	[0x25] = "inheritance",
	[0x06] = "set_mutex_create", [0x16] = "set_mutex_lock",
	[0x26] = "set_mutex_inherit", [0x36] = "set_mutex_unlock",
	[0x46] = "set_mutex_wait",   [0x56] = "set_mutex_post",
	[0x07] = "signal",
	[0x08] = "server_create",    [0x18] = "server_replenish",
	[0x28] = "server_exhaust",   [0x38] = "server_reclaiming",
	[0x48] = "server_remove",    [0x58] = "server_active",
	[0x68] = "server_using_rec",
	[0x09] = "user_event_0",     [0x19] = "user_event_1",
	[0x29] = "user_event_2",     [0x39] = "user_event_3",
	[0x49] = "user_event_4",     [0x59] = "user_event_5",
	[0x69] = "user_event_6",     [0x79] = "user_event_7",
	[0x89] = "user_event_8",     [0x99] = "user_event_9",
	[0xA9] = "user_event_10",    [0xB9] = "user_event_11",
	[0xC9] = "user_event_12",    [0xD9] = "user_event_13",
	[0xE9] = "user_event_14",
	[0x0B] = "timer_post",       [0x1B] = "timer_delete",
	[0x2B] = "timer_wakeup_start", [0x3B] = "timer_wakeup_end",
	[0x1A] = "data_pointer",
	[0xF0] = "filter_trace_events", [0xF1] = "filter_ipoint",
	[0xF2] = "filter_task",      [0xF3] = "filter_interrupt",
	[0xF4] = "filter_CPU",       [0xF5] = "filter_priority",
	[0xF6] = "filter_mutex",     [0xF7] = "filter_signal",
	[0xF8] = "filter_server",    [0xF9] = "filter_user",
	[0xFA] = "filter_data",      [0xFB] = "filter_timer",
	[0xFF] = "next_chunk",
};

const char *shark_code_name(unsigned code)
{
	return code < 256 ? names[code] : NULL;
}
