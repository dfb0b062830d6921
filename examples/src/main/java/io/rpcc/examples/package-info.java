/**
 * rpcc's runnable examples ({@code java -jar rpcc-examples.jar <example>}, or {@code ./rpcc demo}):
 * {@link io.rpcc.examples.Main} picks one by name; the rest of this package is what the scenario
 * runners that reproduce the papers' figures share (command-line options, medians and warm-up,
 * result lines and their ideals, PNG charts). Each example is a subpackage.
 */
package io.rpcc.examples;
