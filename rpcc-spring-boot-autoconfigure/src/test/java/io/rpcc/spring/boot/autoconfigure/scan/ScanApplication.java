package io.rpcc.spring.boot.autoconfigure.scan;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application in this package: its auto-configuration package is the default rpcc.types-packages. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ScanApplication {
}
