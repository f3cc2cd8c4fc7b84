// SPDX-License-Identifier: MIT
/* The ACPI tests' fixture: see acpi_fixture.h. */
#include <string.h>

#include <criterion/criterion.h>

#include "acpi_fixture.h"

struct guest_mem ta_mem;
struct acpi_result ta_res;

void ta_setup(void)
{
	cr_assert_eq(mem_init(&ta_mem, TA_RAM), 0);
}

void ta_teardown(void)
{
	mem_free(&ta_mem);
}

const void *ta_phys(void *ctx, uint64_t addr, uint64_t len)
{
	return mem_ptr(ctx, addr, len);
}

uint8_t *ta_gpa(uint64_t addr, uint64_t len)
{
	uint8_t *p = mem_ptr(&ta_mem, addr, len);

	cr_assert_not_null(p, "0x%llx+%llu not RAM", (unsigned long long)addr,
			   (unsigned long long)len);
	return p;
}

uint32_t ta_get32(uint64_t addr)
{
	uint32_t v;

	memcpy(&v, ta_gpa(addr, 4), 4);
	return v;
}

void ta_put32(uint64_t addr, uint32_t v)
{
	memcpy(ta_gpa(addr, 4), &v, 4);
}

void ta_put64(uint64_t addr, uint64_t v)
{
	memcpy(ta_gpa(addr, 8), &v, 8);
}

uint8_t ta_sum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (len--)
		s += *b++;
	return s;
}

void ta_fix(uint64_t addr)
{
	uint8_t *p = ta_gpa(addr, 36);
	uint32_t len = ta_get32(addr + 4);

	p[9] = 0;
	p[9] = -ta_sum(ta_gpa(addr, len), len);
}

void ta_fix_rsdp(uint64_t addr)
{
	uint8_t *p = ta_gpa(addr, ACPI_RSDP_V2_LEN);

	p[8] = 0;
	p[8] = -ta_sum(p, ACPI_RSDP_V1_LEN);
	p[32] = 0;
	p[32] = -ta_sum(p, ACPI_RSDP_V2_LEN);
}

void ta_set_len(uint64_t addr, uint32_t len)
{
	ta_put32(addr + 4, len);
	/* a length shorter than the header or past RAM cannot be summed */
	if (len >= 10 && addr + len <= TA_RAM)
		ta_fix(addr);
}

void ta_build(unsigned ncpus)
{
	struct acpi_config cfg;

	acpi_default_config(&cfg, ncpus);
	cr_assert_eq(acpi_build(ta_gpa(ACPI_AREA_GPA, ACPI_AREA_LEN),
				ACPI_AREA_GPA, ACPI_AREA_LEN, &cfg, &ta_res), 0);
	cr_assert_leq(ACPI_AREA_GPA + ta_res.used, TA_SPARE,
		      "the tests put their own tables there");
}

int ta_parse(struct acpi_info *ai)
{
	return acpi_parse(ta_gpa(ta_res.rsdp_gpa, ACPI_RSDP_V2_LEN), ta_phys,
			  &ta_mem, ai);
}

void ta_expect(int err)
{
	struct acpi_info ai;
	int ret = ta_parse(&ai);

	cr_assert_eq(ret, err, "got %d (%s), want %d (%s)", ret,
		     acpi_strerror(ret), err, acpi_strerror(err));
}
