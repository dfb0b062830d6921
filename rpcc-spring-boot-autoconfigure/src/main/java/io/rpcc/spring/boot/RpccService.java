package io.rpcc.spring.boot;

import io.rpcc.core.ServiceMethod;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.stereotype.Component;

/**
 * Marks a Spring bean whose {@link ServiceMethod} methods become service functions of the
 * application's auto-configured {@code RpccServer}. It is a {@link Component}, so component scanning
 * finds the class; a {@code @Bean} of such a class works too.
 *
 * <pre>{@code
 * @RpccService
 * class Pricing {
 *     @ServiceMethod("quote")
 *     long quote(Order order) { return catalog.price(order.sku()) * order.quantity(); }
 * }
 * }</pre>
 *
 * <p>The methods are found on the bean's class (behind any Spring AOP proxy) and on the interfaces it
 * implements (service interfaces, which a {@code SequentialChain} calls with typed calls), and called
 * through the bean as the context holds it, so advice such as {@code @Transactional} applies. With a JDK
 * (interface) proxy, each service method must be declared by one of the bean's interfaces. A method whose
 * last parameter is an {@code InputStream} reads the hop's data stream; one marked
 * {@code idempotent = true} is an idempotent service function.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Component
public @interface RpccService {
}
