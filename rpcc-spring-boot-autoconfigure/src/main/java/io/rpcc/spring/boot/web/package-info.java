/**
 * {@link io.rpcc.client.ReplySet}s as server-sent events in Spring MVC
 * ({@link io.rpcc.spring.boot.web.RpccSse}), without Reactor. Needs {@code spring-webmvc} (e.g.
 * {@code spring-boot-starter-webmvc}): the classes of this package load only when an application uses them.
 */
@NullMarked
package io.rpcc.spring.boot.web;

import org.jspecify.annotations.NullMarked;
