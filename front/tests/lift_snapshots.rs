//! Lifting small Java programs, compiled with `javac` at test time, checked against the
//! printed IR (`UPDATE_EXPECT=1 cargo test` rewrites the snapshots). Also a class file
//! assembled by hand for `jsr`/`ret` and `wide`, which javac no longer emits.

mod support;

use std::path::PathBuf;
use std::sync::OnceLock;

use expect_test::expect;
use membound_front::classfile::Class;
use membound_front::ir::{lift_method, print_body};
use support::{ClassFile, RawMethod, javac, lifted};

const SHAPES: &str = r#"
import java.util.*;
import java.util.function.*;

public class Shapes {
    int f;
    long lf;

    static int count(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i;
        }
        return s;
    }

    Integer box() {
        return new Integer(7);
    }

    String concat(String a, int b) {
        return a + b + "!";
    }

    Supplier<List<String>> lambda() {
        return () -> new ArrayList<>();
    }

    int table(int k) {
        switch (k) {
            case 1: return 10;
            case 2: return 20;
            case 3: return 30;
            default: return 0;
        }
    }

    int lookup(int k) {
        switch (k) {
            case -5: return 1;
            case 1000: return 2;
            default: return 0;
        }
    }

    int guarded(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        } finally {
            f++;
        }
    }

    int[][] grid(int n) {
        return new int[n][n + 1];
    }

    long wide(long a, double d) {
        long x = a * 2;
        x += (long) d;
        return x;
    }

    int postIncrementField() {
        return f++;
    }

    long postIncrementLongField() {
        return lf++;
    }

    int postIncrementElement(int[] xs, int i) {
        return xs[i]++;
    }

    long postIncrementLongElement(long[] xs, int i) {
        return xs[i]++;
    }

    int choose(boolean c, int a, int b) {
        return c ? a : b;
    }

    static void reuse() {
        {
            int a = 1;
            System.out.println(a);
        }
        {
            String a = "x";
            System.out.println(a);
        }
    }

    void locked(Object o) {
        synchronized (o) {
            f = 1;
        }
    }
}
"#;

/// Shapes.java is compiled once for all the tests of this file.
fn shapes(method: &str) -> String {
    static CLASSES: OnceLock<PathBuf> = OnceLock::new();
    let dir =
        CLASSES.get_or_init(|| javac("shapes", &["--release", "17"], &[("Shapes.java", SHAPES)]));
    lifted(dir, "Shapes", method)
}

#[test]
fn loop_with_increment() {
    expect![[r#"
        static <Shapes: int count(int)>
        {
            int n; // parameter 0
            int s;
            int i;

          B0: // pc 0
            // line 10
            s = 0
            // line 11
            i = 0
            goto B1

          B1: // pc 4
            if i >= n goto B2 else B3

          B2: // pc 19
            return s

          B3: // pc 9
            // line 12
            s = s + i
            // line 11
            i = i + 1
            goto B1
        }
    "#]]
    .assert_eq(&shapes("count"));
}

#[test]
fn object_creation_and_constructor_call() {
    expect![[r#"
        <Shapes: java.lang.Integer box()>
        {
            Shapes this; // this
            java.lang.Integer $s0;

          B0: // pc 0
            // line 18
            $s0 = new java.lang.Integer
            specialinvoke $s0.<java.lang.Integer: void <init>(int)>(7)
            return $s0
        }
    "#]]
    .assert_eq(&shapes("box"));
}

#[test]
fn string_concatenation_by_invokedynamic() {
    expect![[r#"
        <Shapes: java.lang.String concat(java.lang.String,int)>
        {
            Shapes this; // this
            java.lang.String a; // parameter 0
            int b; // parameter 1
            java.lang.String $s0;

          B0: // pc 0
            // line 22
            $s0 = dynamicinvoke <java.lang.invoke.StringConcatFactory: java.lang.String makeConcatWithConstants(java.lang.String,int)>(a, b) // string concat "\u{1}\u{1}!"
            return $s0
        }
    "#]].assert_eq(&shapes("concat"));
}

#[test]
fn lambda_by_invokedynamic() {
    expect![[r#"
        <Shapes: java.util.function.Supplier lambda()>
        {
            Shapes this; // this
            java.util.function.Supplier $s0;

          B0: // pc 0
            // line 26
            $s0 = dynamicinvoke <java.lang.invoke.LambdaMetafactory: java.util.function.Supplier get()>() // lambda java.util.function.Supplier -> Shapes.lambda$lambda$0()Ljava/util/List;
            return $s0
        }
    "#]].assert_eq(&shapes("lambda"));
}

#[test]
fn tableswitch() {
    expect![[r#"
        <Shapes: int table(int)>
        {
            Shapes this; // this
            int k; // parameter 0

          B0: // pc 0
            switch k { case 1: B2; case 2: B3; case 3: B4; default: B1 }

          B1: // pc 37
            return 0

          B2: // pc 28
            return 10

          B3: // pc 31
            return 20

          B4: // pc 34
            return 30
        }
    "#]]
    .assert_eq(&shapes("table"));
}

#[test]
fn lookupswitch() {
    expect![[r#"
        <Shapes: int lookup(int)>
        {
            Shapes this; // this
            int k; // parameter 0

          B0: // pc 0
            switch k { case -5: B2; case 1000: B3; default: B1 }

          B1: // pc 32
            return 0

          B2: // pc 28
            return 1

          B3: // pc 30
            return 2
        }
    "#]]
    .assert_eq(&shapes("lookup"));
}

#[test]
fn try_catch_finally() {
    expect![[r#"
        <Shapes: int guarded(java.lang.String)>
        {
            Shapes this; // this
            java.lang.String s; // parameter 0
            int l2;
            int $s1;
            java.lang.NumberFormatException $s0;
            java.lang.NumberFormatException e;
            int l3;
            java.lang.Throwable $s0_1;
            java.lang.Throwable l4;

          B0: // pc 0, catch java.lang.NumberFormatException -> B2, catch any -> B3
            // line 48
            l2 = staticinvoke <java.lang.Integer: int parseInt(java.lang.String)>(s)
            goto B1

          B1: // pc 5
            // line 52
            $s1 = this.<Shapes: int f>
            $s1 = $s1 + 1
            this.<Shapes: int f> = $s1
            return l2

          B2: // pc 17, catch any -> B3
            // line 49
            $s0 = @caughtexception
            e = $s0
            // line 50
            l3 = -1
            goto B4

          B3: // pc 32, catch any -> B3
            // line 52
            $s0_1 = @caughtexception
            l4 = $s0_1
            goto B5

          B4: // pc 20
            // line 52
            $s1 = this.<Shapes: int f>
            $s1 = $s1 + 1
            this.<Shapes: int f> = $s1
            return l3

          B5: // pc 34
            // line 52
            $s1 = this.<Shapes: int f>
            $s1 = $s1 + 1
            this.<Shapes: int f> = $s1
            throw l4
        }
    "#]]
    .assert_eq(&shapes("guarded"));
}

#[test]
fn multianewarray() {
    expect![[r#"
        <Shapes: int[][] grid(int)>
        {
            Shapes this; // this
            int n; // parameter 0
            int $s1;
            int[][] $s0;

          B0: // pc 0
            // line 57
            $s1 = n + 1
            $s0 = newarray int[n][$s1]
            return $s0
        }
    "#]]
    .assert_eq(&shapes("grid"));
}

#[test]
fn long_and_double_take_two_slots() {
    expect![[r#"
        <Shapes: long wide(long,double)>
        {
            Shapes this; // this
            long a; // parameter 0
            double d; // parameter 1
            long x;
            long $s1;

          B0: // pc 0
            // line 61
            x = a * 2L
            // line 62
            $s1 = (long) d
            x = x + $s1
            return x
        }
    "#]]
    .assert_eq(&shapes("wide"));
}

#[test]
fn dup_x1() {
    expect![[r#"
        <Shapes: int postIncrementField()>
        {
            Shapes this; // this
            int $s1;
            int $s2;

          B0: // pc 0
            // line 67
            $s1 = this.<Shapes: int f>
            $s2 = $s1 + 1
            this.<Shapes: int f> = $s2
            return $s1
        }
    "#]]
    .assert_eq(&shapes("postIncrementField"));
}

#[test]
fn dup2_x1_with_a_long() {
    expect![[r#"
        <Shapes: long postIncrementLongField()>
        {
            Shapes this; // this
            long $s1;
            long $s2;

          B0: // pc 0
            // line 71
            $s1 = this.<Shapes: long lf>
            $s2 = $s1 + 1L
            this.<Shapes: long lf> = $s2
            return $s1
        }
    "#]]
    .assert_eq(&shapes("postIncrementLongField"));
}

#[test]
fn dup_x2_and_dup2() {
    expect![[r#"
        <Shapes: int postIncrementElement(int[],int)>
        {
            Shapes this; // this
            int[] xs; // parameter 0
            int i; // parameter 1
            int $s2;
            int $s3;

          B0: // pc 0
            // line 75
            $s2 = xs[i]
            $s3 = $s2 + 1
            xs[i] = $s3
            return $s2
        }
    "#]]
    .assert_eq(&shapes("postIncrementElement"));
}

#[test]
fn dup2_x2_with_a_long() {
    expect![[r#"
        <Shapes: long postIncrementLongElement(long[],int)>
        {
            Shapes this; // this
            long[] xs; // parameter 0
            int i; // parameter 1
            long $s2;
            long $s3;

          B0: // pc 0
            // line 79
            $s2 = xs[i]
            $s3 = $s2 + 1L
            xs[i] = $s3
            return $s2
        }
    "#]]
    .assert_eq(&shapes("postIncrementLongElement"));
}

#[test]
fn values_on_the_stack_across_blocks() {
    expect![[r#"
        <Shapes: int choose(boolean,int,int)>
        {
            Shapes this; // this
            boolean c; // parameter 0
            int a; // parameter 1
            int b; // parameter 2
            int $s0;

          B0: // pc 0
            if c == 0 goto B1 else B2

          B1: // pc 8
            // line 83
            $s0 = b
            goto B3

          B2: // pc 4
            // line 83
            $s0 = a
            goto B3

          B3: // pc 9
            return $s0
        }
    "#]]
    .assert_eq(&shapes("choose"));
}

#[test]
fn slot_reused_with_another_type_is_another_variable() {
    expect![[r#"
        static <Shapes: void reuse()>
        {
            int a;
            java.io.PrintStream $s0;
            java.lang.String a#2;

          B0: // pc 0
            // line 88
            a = 1
            // line 89
            $s0 = <java.lang.System: java.io.PrintStream out>
            virtualinvoke $s0.<java.io.PrintStream: void println(int)>(a)
            // line 92
            a#2 = "x"
            // line 93
            $s0 = <java.lang.System: java.io.PrintStream out>
            virtualinvoke $s0.<java.io.PrintStream: void println(java.lang.String)>(a#2)
            return
        }
    "#]]
    .assert_eq(&shapes("reuse"));
}

#[test]
fn monitors() {
    expect![[r#"
        <Shapes: void locked(java.lang.Object)>
        {
            Shapes this; // this
            java.lang.Object o; // parameter 0
            java.lang.Object l2;
            java.lang.Throwable $s0;
            java.lang.Throwable l3;

          B0: // pc 0
            // line 98
            l2 = o
            entermonitor o
            goto B1

          B1: // pc 4, catch any -> B3
            // line 99
            this.<Shapes: int f> = 1
            // line 100
            exitmonitor l2
            goto B2

          B2: // pc 11
            goto B4

          B3: // pc 14, catch any -> B3
            // line 100
            $s0 = @caughtexception
            l3 = $s0
            exitmonitor l2
            goto B5

          B4: // pc 19
            return

          B5: // pc 17
            throw l3
        }
    "#]]
    .assert_eq(&shapes("locked"));
}

#[test]
fn java_7_class_files_concatenate_with_string_builder() {
    let source = r#"
        public class Old {
            static String greet(String name, int times) {
                return "hello " + name + times;
            }
        }
    "#;
    let dir = javac(
        "release7",
        &["-source", "7", "-target", "7"],
        &[("Old.java", source)],
    );
    expect![[r#"
        static <Old: java.lang.String greet(java.lang.String,int)>
        {
            java.lang.String name; // parameter 0
            int times; // parameter 1
            java.lang.StringBuilder $s0;
            java.lang.String $s0_1;

          B0: // pc 0
            // line 4
            $s0 = new java.lang.StringBuilder
            specialinvoke $s0.<java.lang.StringBuilder: void <init>()>()
            $s0 = virtualinvoke $s0.<java.lang.StringBuilder: java.lang.StringBuilder append(java.lang.String)>("hello ")
            $s0 = virtualinvoke $s0.<java.lang.StringBuilder: java.lang.StringBuilder append(java.lang.String)>(name)
            $s0 = virtualinvoke $s0.<java.lang.StringBuilder: java.lang.StringBuilder append(int)>(times)
            $s0_1 = virtualinvoke $s0.<java.lang.StringBuilder: java.lang.String toString()>()
            return $s0_1
        }
    "#]].assert_eq(&lifted(&dir, "Old", "greet"));
}

/// `static int m(int x)` calling a subroutine twice; the subroutine keeps its return address
/// in local 300 (`wide astore`, `wide ret`) and adds 1000 to `x` (`wide iinc`).
fn subroutine_class() -> Vec<u8> {
    let mut class = ClassFile::new("Sub", 46);
    #[rustfmt::skip]
    let code = [
        0xa8, 0x00, 0x08,             //  0: jsr 8
        0x1a,                         //  3: iload_0
        0xa8, 0x00, 0x04,             //  4: jsr 8
        0xac,                         //  7: ireturn
        0xc4, 0x3a, 0x01, 0x2c,       //  8: wide astore 300
        0xc4, 0x84, 0x00, 0x00, 0x03, 0xe8, // 12: wide iinc 0 1000
        0xc4, 0xa9, 0x01, 0x2c,       // 18: wide ret 300
    ];
    class.method(RawMethod {
        name: "m",
        descriptor: "(I)I",
        max_stack: 2,
        max_locals: 301,
        code: &code,
        exceptions: &[],
    });
    class.bytes()
}

#[test]
fn jsr_and_ret_are_inlined_per_call_site() {
    let class = Class::parse(&subroutine_class()).expect("parse");
    let body = lift_method(&class, &class.methods[0]).expect("lift");
    expect![[r#"
        static <Sub: int m(int)>
        {
            int p0; // parameter 0
            int $s0;

          B0: // pc 0
            goto B1

          B1: // pc 8
            p0 = p0 + 1000
            goto B2

          B2: // pc 3
            $s0 = p0
            goto B3

          B3: // pc 8
            p0 = p0 + 1000
            goto B4

          B4: // pc 7
            return $s0
        }
    "#]]
    .assert_eq(&print_body(&body));
}

/// `static int m(int a, int b) { return (b + 2) - (a + 1); }` computed as `a + 1`, `b + 2`,
/// `swap`, then a jump with both values on the stack: the end-of-block moves form a cycle.
#[test]
fn a_swap_across_a_jump_is_a_parallel_move() {
    let mut class = ClassFile::new("Swap", 52);
    #[rustfmt::skip]
    let code = [
        0x1a, 0x04, 0x60,   //  0: iload_0; iconst_1; iadd
        0x1b, 0x05, 0x60,   //  3: iload_1; iconst_2; iadd
        0x5f,               //  6: swap
        0xa7, 0x00, 0x03,   //  7: goto 10
        0x64,               // 10: isub
        0xac,               // 11: ireturn
    ];
    class.method(RawMethod {
        name: "m",
        descriptor: "(II)I",
        max_stack: 3,
        max_locals: 2,
        code: &code,
        exceptions: &[],
    });
    let class = Class::parse(&class.bytes()).expect("parse");
    let body = lift_method(&class, &class.methods[0]).expect("lift");
    expect![[r#"
        static <Swap: int m(int,int)>
        {
            int p0; // parameter 0
            int p1; // parameter 1
            int $s0;
            int $s1;
            int $s4;

          B0: // pc 0
            $s0 = p0 + 1
            $s1 = p1 + 2
            $s4 = $s1
            $s1 = $s0
            $s0 = $s4
            goto B1

          B1: // pc 10
            $s0 = $s0 - $s1
            return $s0
        }
    "#]]
    .assert_eq(&print_body(&body));
}
