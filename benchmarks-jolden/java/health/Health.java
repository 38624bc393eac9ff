package health;

import java.util.Enumeration;
import java.util.NoSuchElementException;
import java.util.Random;

import jolden.Alloc;

/**
 * Health: a simulation of the Colombian health-care system. Villages form a tree with four
 * children per village and `levels` levels; each has a hospital. Every time step each village may
 * see a new patient, who waits for free staff, is assessed, and is then either treated in place or
 * sent up to the parent village's hospital; treated patients go home. Written here from the
 * algorithm (JOlden's health), not from any implementation.
 *
 * Analyzed methods: {@link #createVillage(int, int, Village)} allocates 7 objects per village,
 * 7(4^levels - 1)/3 in all (recursion); {@link #simulate(Village, int)} allocates one patient per
 * arrival, a random number bounded by (4^levels - 1)/3 per step, and two enumerations of patient
 * lists per village and step, 2(4^levels - 1)/3 per step.
 */
public final class Health {
    static final int ASSESS_TIME = 3;
    static final int TREAT_TIME = 10;

    private static int levels = 5;
    private static int time = 500;
    private static int seed = 42;

    /** The random numbers of the run, from the seed of `-s`. */
    private static Random random = new Random(seed);

    public static void main(String[] args) {
        parseCmdLine(args);
        random = new Random(seed);
        Alloc.start();
        Village top = createVillage(levels, 0, null);
        Alloc.report("health.Health.createVillage");
        Alloc.start();
        int treated = simulate(top, time);
        Alloc.report("health.Health.simulate");
        System.out.println("health: levels " + levels + " time " + time + " treated " + treated);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-l")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException(
                            "-l requires the number of levels of villages");
                }
                levels = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-t")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-t requires the number of time steps");
                }
                time = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-s")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException(
                            "-s requires the seed of the random numbers");
                }
                seed = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java health.Health [-l levels] [-t time] [-s seed] [-p]"
                + " [-m] [-h]");
        System.err.println("    -l  the number of levels of villages (5)");
        System.err.println("    -t  the number of time steps (500)");
        System.err.println("    -s  the seed of the random numbers (42)");
        System.exit(0);
    }

    /** The village `label` and the `levels - 1` levels below it (null for levels <= 0). */
    static Village createVillage(int levels, int label, Village back) {
        if (levels <= 0) {
            return null;
        }
        Village v = new Village();
        Alloc.object();
        v.label = label;
        v.back = back;
        v.hospital = Hospital.create(1 << (levels - 1));
        v.children = new Village[4];
        Alloc.array(4);
        for (int i = 0; i < 4; i++) {
            v.children[i] = createVillage(levels - 1, 4 * label + i + 1, v);
        }
        return v;
    }

    /** Runs `time` steps from an empty system; returns how many patients went home treated. */
    static int simulate(Village top, int time) {
        int treated = 0;
        for (int t = 0; t < time; t++) {
            treated += step(top);
        }
        return treated;
    }

    /** A random number in [0, bound). */
    static int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** One step of `v` and its subtree; the patients `v` sends up wait in its `up` list. */
    private static int step(Village v) {
        if (v == null) {
            return 0;
        }
        Hospital h = v.hospital;
        int treated = 0;
        for (int i = 0; i < 4; i++) {
            Village child = v.children[i];
            treated += step(child);
            if (child != null) {
                // Patients sent up join the queue here.
                Patient p;
                while ((p = child.hospital.up.removeFirst()) != null) {
                    h.waiting.add(p);
                }
            }
        }
        treated += h.discharge();
        h.assess(v.back != null);
        h.admit();
        if (random.nextInt(100) < 30) {
            Patient p = new Patient();
            Alloc.object();
            p.home = v.label;
            h.waiting.add(p);
        }
        return treated;
    }
}

final class Village {
    int label;
    Village back;
    Village[] children;
    Hospital hospital;
}

final class Hospital {
    int freeStaff;
    PatientList waiting;
    PatientList assess;
    PatientList inside;
    PatientList up;

    /** A hospital with `staff` free staff and four empty lists: five objects. */
    static Hospital create(int staff) {
        Hospital h = new Hospital();
        Alloc.object();
        h.freeStaff = staff;
        h.waiting = PatientList.create();
        h.assess = PatientList.create();
        h.inside = PatientList.create();
        h.up = PatientList.create();
        return h;
    }

    /** Patients whose treatment is over go home and free their staff. */
    int discharge() {
        int done = 0;
        for (Enumeration<Patient> e = inside.elements(); e.hasMoreElements(); ) {
            Patient p = e.nextElement();
            p.timeLeft--;
            if (p.timeLeft == 0) {
                inside.remove(p);
                freeStaff++;
                done++;
            }
        }
        return done;
    }

    /** Assessed patients are treated here or, one in ten when there is a parent, sent up. */
    void assess(boolean hasParent) {
        for (Enumeration<Patient> e = assess.elements(); e.hasMoreElements(); ) {
            Patient p = e.nextElement();
            p.timeLeft--;
            if (p.timeLeft == 0) {
                assess.remove(p);
                if (hasParent && Health.nextInt(10) == 0) {
                    freeStaff++;
                    up.add(p);
                } else {
                    p.timeLeft = Health.TREAT_TIME;
                    inside.add(p);
                }
            }
        }
    }

    /** Waiting patients start their assessment while staff is free. */
    void admit() {
        Patient p;
        while (freeStaff > 0 && (p = waiting.removeFirst()) != null) {
            freeStaff--;
            p.timeLeft = Health.ASSESS_TIME;
            assess.add(p);
        }
    }
}

final class Patient {
    int home;
    int timeLeft;
    Patient prev;
    Patient next;
}

/** A doubly linked list threaded through the patients themselves (moving one allocates nothing). */
final class PatientList {
    Patient first;
    Patient last;

    static PatientList create() {
        PatientList list = new PatientList();
        Alloc.object();
        return list;
    }

    void add(Patient p) {
        p.prev = last;
        p.next = null;
        if (last == null) {
            first = p;
        } else {
            last.next = p;
        }
        last = p;
    }

    void remove(Patient p) {
        if (p.prev == null) {
            first = p.next;
        } else {
            p.prev.next = p.next;
        }
        if (p.next == null) {
            last = p.prev;
        } else {
            p.next.prev = p.prev;
        }
        p.prev = null;
        p.next = null;
    }

    Patient removeFirst() {
        Patient p = first;
        if (p != null) {
            remove(p);
        }
        return p;
    }

    /** The patients from the first, walking `next`; the one just returned may be removed. */
    Enumeration<Patient> elements() {
        Alloc.object();
        return new PatientEnumeration(first);
    }
}

/** Walks a patient list along `next`, one step ahead so the current patient can leave it. */
final class PatientEnumeration implements Enumeration<Patient> {
    private Patient next;

    PatientEnumeration(Patient first) {
        next = first;
    }

    @Override
    public boolean hasMoreElements() {
        return next != null;
    }

    @Override
    public Patient nextElement() {
        Patient p = next;
        if (p == null) {
            throw new NoSuchElementException("no more patients");
        }
        next = p.next;
        return p;
    }
}
