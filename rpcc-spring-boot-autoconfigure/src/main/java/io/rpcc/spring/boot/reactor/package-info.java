/**
 * {@link io.rpcc.client.ReplySet}s as Reactor types ({@link io.rpcc.spring.boot.reactor.RpccReactive}),
 * for WebFlux and other Reactor code. Needs {@code io.projectreactor:reactor-core}, an optional
 * dependency of the starter: the classes of this package load only when an application uses them.
 */
@NullMarked
package io.rpcc.spring.boot.reactor;

import org.jspecify.annotations.NullMarked;
