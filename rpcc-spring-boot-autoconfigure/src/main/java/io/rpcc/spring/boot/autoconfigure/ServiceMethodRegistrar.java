package io.rpcc.spring.boot.autoconfigure;

import io.rpcc.server.RpccServer;
import io.rpcc.core.ServiceMethod;
import io.rpcc.core.spi.ServiceMethods;
import io.rpcc.spring.boot.RpccService;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers the {@link ServiceMethod} methods of {@link RpccService} beans as service functions: the
 * methods are found on the bean's own class (behind its AOP proxy, if any) and on the interfaces it
 * implements (service interfaces, which a {@code SequentialChain} calls with typed calls), and called
 * through the bean as the context holds it, so that the proxy's advice runs. A method whose last
 * parameter is an {@link InputStream} is a streaming service function: it gets the hop's data stream
 * there, and the chain's params in the parameters before it. {@link ServiceMethod#idempotent()}
 * methods are registered as idempotent service functions.
 */
final class ServiceMethodRegistrar {
    private final Map<String, String> declaredBy = new LinkedHashMap<>();

    /**
     * The names of the {@link RpccService} beans of {@code beanFactory}: beans whose type, or the class
     * their definition declares (the return type of a {@code @Bean} method, whose bean may be a JDK
     * proxy that no longer shows the annotation), is annotated.
     */
    static List<String> serviceBeanNames(ConfigurableListableBeanFactory beanFactory) {
        List<String> names = new ArrayList<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            BeanDefinition definition = beanFactory.getMergedBeanDefinition(name);
            if (definition.isAbstract()) {
                continue;
            }
            Class<?> declared = definition.getResolvableType().resolve();
            if (beanFactory.findAnnotationOnBean(name, RpccService.class, false) != null
                    || declared != null && MergedAnnotations.from(declared, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                            .isPresent(RpccService.class)) {
                names.add(name);
            }
        }
        return names;
    }

    /** Registers the service methods of {@code bean}, named {@code beanName} in the context, on {@code builder}. */
    void register(RpccServer.Builder builder, String beanName, Object bean) {
        Class<?> targetClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
        Map<Method, ServiceMethod> methods = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<ServiceMethod>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, ServiceMethod.class));
        if (methods.isEmpty()) {
            throw new IllegalStateException("@RpccService bean '" + beanName + "' (" + targetClass.getName()
                    + ") has no @ServiceMethod methods: annotate the methods that serve chains with @ServiceMethod");
        }
        methods.forEach((method, annotation) -> {
            String where = "@ServiceMethod " + targetClass.getName() + "." + method.getName() + " of bean '" + beanName + "'";
            if (Modifier.isStatic(method.getModifiers())) {
                throw new IllegalStateException(where + " must be an instance method");
            }
            Method invocable = invocable(method, bean, where);
            String name = annotation.value().isEmpty() ? method.getName() : annotation.value();
            String previous = declaredBy.putIfAbsent(name, where);
            if (previous != null) {
                throw new IllegalStateException("service function '" + name + "' is declared twice: by " + previous
                        + " and by " + where + "; give one of them another name with @ServiceMethod(\"...\")");
            }
            Class<?>[] parameterTypes = method.getParameterTypes();
            boolean streaming = parameterTypes.length > 0 && parameterTypes[parameterTypes.length - 1] == InputStream.class;
            int valueParameters = streaming ? parameterTypes.length - 1 : parameterTypes.length;
            Class<?> parameterType = valueParameters == 1 ? parameterTypes[0] : null;
            if (streaming) {
                if (annotation.idempotent()) {
                    throw new IllegalStateException(where + " reads a data stream (its last parameter is an InputStream),"
                            + " which is read once: it cannot be idempotent; remove idempotent = true");
                }
                builder.streamingService(name, (params, data) ->
                        invoke(bean, invocable, valueParameters, parameterType, name, params, data));
            } else if (annotation.idempotent()) {
                builder.idempotentService(name, params ->
                        invoke(bean, invocable, valueParameters, parameterType, name, params, null));
            } else {
                builder.service(name, params -> invoke(bean, invocable, valueParameters, parameterType, name, params, null));
            }
        });
    }

    private static Method invocable(Method method, Object bean, String where) {
        if (AopUtils.isAopProxy(bean) && Modifier.isFinal(method.getModifiers())) {
            throw new IllegalStateException(where + " is final, so the bean's AOP proxy cannot pass the call to the"
                    + " bean: make the method non-final");
        }
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw new IllegalStateException(where + " cannot be called through the bean's AOP proxy: declare it on an"
                    + " interface the bean implements, or let Spring proxy the class (spring.aop.proxy-target-class=true),"
                    + " and do not make it private", e);
        }
        ReflectionUtils.makeAccessible(invocable);
        return invocable;
    }

    /**
     * Calls {@code method} of {@code bean} with {@code params}: no argument, the params themselves
     * ({@code parameterType}, checked), or a list of {@code valueParameters} values ({@link ServiceMethods});
     * then {@code data}, the hop's data stream, if the method is a streaming one ({@code data} not null).
     */
    private static @Nullable Object invoke(Object bean, Method method, int valueParameters,
                                           @Nullable Class<?> parameterType, String name, @Nullable Object params,
                                           @Nullable InputStream data) throws Exception {
        if (parameterType != null && !ClassUtils.isAssignableValue(parameterType, params)) {
            throw new IllegalArgumentException("service function '" + name + "' takes a " + parameterType.getName()
                    + ", not " + (params == null ? "null" : "a " + params.getClass().getName()));
        }
        Object[] arguments;
        if (valueParameters == 0) {
            arguments = new Object[0];
        } else if (valueParameters == 1) {
            arguments = new Object[] {params};
        } else if (params instanceof List<?> list && list.size() == valueParameters) {
            arguments = list.toArray();
        } else {
            throw new IllegalArgumentException("service function '" + name + "' (" + method.getDeclaringClass().getName()
                    + "." + method.getName() + ") takes " + valueParameters + " parameters, passed as a list of "
                    + valueParameters + " values; got " + (params == null ? "null" : params instanceof List<?> l
                    ? "a list of " + l.size() : "a " + params.getClass().getName()));
        }
        if (data != null) {
            arguments = Arrays.copyOf(arguments, arguments.length + 1);
            arguments[arguments.length - 1] = data;
        }
        try {
            return method.invoke(bean, arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }
}
