package io.rpcc.examples.spring.checkout;

import io.rpcc.examples.spring.model.Order;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Profile;

/**
 * The client application: no rpcc server, only a client ({@code checkout.properties}), and a web
 * endpoint ({@link CheckoutController}) that streams a checkout as server-sent events. Run with the
 * {@code demo} profile, it checks one order out and prints the shipment.
 */
@SpringBootApplication
public class CheckoutApplication {

    /** Runs the checkout application. */
    public static void main(String[] args) {
        new SpringApplicationBuilder(CheckoutApplication.class).properties("spring.config.name=checkout").run(args);
    }

    /** With the demo profile: checks out one order. */
    @Bean
    @Profile("demo")
    CommandLineRunner checkOutOneOrder(CheckoutService checkout) {
        return args -> System.out.println(checkout.checkout(new Order("o-1", "KB-42", 2, "FR")));
    }
}
