/*
 * firmware.h - the QEMU firmware's handlers and its failure exit.
 */
#ifndef FIRMWARE_H
#define FIRMWARE_H

int main(void);
void fw_fail(const char *why) __attribute__((noreturn));
void PendSV_Handler(void);
void SysTick_Handler(void);
void Timer0_Handler(void);

#endif
