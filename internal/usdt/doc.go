// Package usdt reads the USDT (SystemTap SDT) probes of an ELF file: the
// notes of its .note.stapsdt section (provider, name, location, semaphore
// and argument specification), adjusted for prelinking (.stapsdt.base) and
// translated to file offsets for uprobes, and parses the x86-64 argument
// specifications ("-4@%eax", "8@-8(%rbp)", "4@$5", "8@16(%rax,%rdx,8)").
//
// It only reads files; attaching and code generation are done by the
// usdt provider and the code generator.
package usdt
