/**
 * The aggregation scenario ({@link io.rpcc.examples.aggregation.Aggregation}): an aggregator gathers
 * records from sources of different speeds, one a straggler, and sends each to the client as a
 * partial reply as soon as it has it, against a single return at the end.
 */
package io.rpcc.examples.aggregation;
