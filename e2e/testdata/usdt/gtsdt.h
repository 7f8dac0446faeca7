/*
 * gtsdt.h: GT_PROBE(provider, name, semaphore, args, operands...) places a
 * USDT probe: a nop at the probe's location, recorded in a .note.stapsdt
 * note (owner "stapsdt", type 3) holding the location, the address of
 * .stapsdt.base (for prelink adjustment), the semaphore's address ("0" for
 * none), then the provider, the name and the argument specification,
 * NUL-terminated. ARGS refers to the asm operands (%0, %1...), which the
 * compiler writes as registers, memory operands or $constants.
 */
#ifndef GTSDT_H
#define GTSDT_H

#define GT_PROBE(provider, name, sema, args, ...)                             \
	__asm__ __volatile__(                                                  \
	    "990:\tnop\n"                                                      \
	    "\t.pushsection .note.stapsdt,\"\",\"note\"\n"                     \
	    "\t.balign 4\n"                                                    \
	    "\t.4byte 992f-991f, 994f-993f, 3\n"                               \
	    "991:\t.asciz \"stapsdt\"\n"                                       \
	    "992:\t.balign 4\n"                                                \
	    "993:\t.8byte 990b, _.stapsdt.base, " sema "\n"                    \
	    "\t.asciz \"" #provider "\"\n"                                     \
	    "\t.asciz \"" #name "\"\n"                                         \
	    "\t.asciz \"" args "\"\n"                                          \
	    "994:\t.balign 4\n"                                                \
	    "\t.popsection\n"                                                  \
	    "\t.ifndef _.stapsdt.base\n"                                       \
	    "\t.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	    "\t.weak _.stapsdt.base\n"                                         \
	    "\t.hidden _.stapsdt.base\n"                                       \
	    "_.stapsdt.base:\t.space 1\n"                                      \
	    "\t.size _.stapsdt.base, 1\n"                                      \
	    "\t.popsection\n"                                                  \
	    "\t.endif\n"                                                       \
	    : : __VA_ARGS__)

#endif
