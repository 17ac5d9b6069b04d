/**
 * src/cli: the command line's definition (commander), one module per command group, each a
 * `register…(program)`; ./program.ts puts them together without parsing, ./main.ts parses argv with
 * it. A command's body lives in src/commands (or src/tui, src/exporter) and is imported lazily from
 * its action, so defining the program loads nothing but commander.
 *
 * May import: anything (it is the top); only lazily for the faces.
 * Imported by: src/cli.ts only (and the manual's drift test); ./main.ts is also an entry of dist/.
 */
export {};
