/**
 * A sample service jar, built as a user builds theirs: application types ({@code @RpccType} records),
 * a {@link io.rpcc.node.ServiceModule} and a {@code @ServiceMethod} class, packaged as a plain jar
 * for the standalone node's services directory or a node container. Its integration tests
 * ({@code *IT}, run by Failsafe after {@code package}) load this jar into the node's distribution
 * started with {@code java -jar} and into three {@code RpccNodeContainer}s, and run a Java
 * chaining function that imports these types and sends partial replies.
 */
package com.acme.svc;
