/**
 * A sample service jar, built as a user builds theirs: application types ({@code @RpccType} records),
 * a {@link io.rpcc.node.ServiceModule} (with a streaming service function), and service interfaces
 * ({@link com.acme.svc.Orders}, {@link com.acme.svc.Pricing}, {@link com.acme.svc.Stock},
 * {@link com.acme.svc.Warehouse}, {@link com.acme.svc.Payments}) implemented by classes the node loads by
 * name ({@link com.acme.svc.Stockroom} and {@link com.acme.svc.Ledger} keep transactional state for atomic chains), packaged as a plain jar for the standalone node's services directory
 * or a node container. Its integration tests ({@code *IT}, run by Failsafe after {@code package}) load
 * this jar into the node's distribution started with {@code java -jar} and into three
 * {@code RpccNodeContainer}s, and run a Java chaining function that imports these types and sends
 * partial replies, a sequential chain of typed calls through the interfaces, uploads, and atomic order
 * chains (stock at one node, payment at another).
 */
package com.acme.svc;
