// How a fragment's tasks follow from its sources, mirroring the fragment's shape: a scan gives
// one task per FilePartition of its files, a rows input one per partition of the Spark child
// feeding it, a broadcast input is in every task, a join zips its sides' tasks (equal numbers),
// a cartesian product pairs every task of one side with every task of the other, a union
// concatenates its children's tasks. TandemRDD turns the result into its partitions.
package dev.tandem.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.execution.datasources.FilePartition;

sealed interface PartitionShape extends Serializable {
  /** What one task reads: a file partition per scan (by scan index), a partition per input. */
  record Task(Map<Integer, FilePartition> files, Map<Integer, Integer> inputPartitions) {
    static Task empty() {
      return new Task(new HashMap<>(), new HashMap<>());
    }

    Task merge(Task other) {
      Task t = empty();
      t.files.putAll(files);
      t.files.putAll(other.files);
      t.inputPartitions.putAll(inputPartitions);
      t.inputPartitions.putAll(other.inputPartitions);
      return t;
    }
  }

  /** The sizes of the sources, known on the driver at execution time. */
  interface Sources {
    List<FilePartition> scanPartitions(int scan);

    int inputPartitions(int input);
  }

  /** The tasks; null means "the same in every task" (a broadcast). */
  List<Task> tasks(Sources sources);

  record Scan(int scan) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      List<Task> out = new ArrayList<>();
      for (FilePartition p : sources.scanPartitions(scan)) {
        Task t = Task.empty();
        t.files().put(scan, p);
        out.add(t);
      }
      return out;
    }
  }

  record Rows(int input) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      List<Task> out = new ArrayList<>();
      for (int p = 0; p < sources.inputPartitions(input); p++) {
        Task t = Task.empty();
        t.inputPartitions().put(input, p);
        out.add(t);
      }
      return out;
    }
  }

  record Broadcast(int input) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      return null;
    }
  }

  record Zip(List<PartitionShape> parts) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      List<Task> out = null;
      for (PartitionShape part : parts) {
        List<Task> tasks = part.tasks(sources);
        if (tasks == null) continue;
        if (out == null) {
          out = tasks;
          continue;
        }
        if (tasks.size() != out.size()) {
          throw new IllegalStateException("a Tandem join zips inputs of " + out.size() + " and "
              + tasks.size() + " partitions: " + this);
        }
        for (int i = 0; i < out.size(); i++) out.set(i, out.get(i).merge(tasks.get(i)));
      }
      return out;
    }
  }

  record Product(PartitionShape left, PartitionShape right) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      List<Task> l = left.tasks(sources);
      List<Task> r = right.tasks(sources);
      if (l == null || r == null) return l == null ? r : l;
      List<Task> out = new ArrayList<>();
      for (Task a : l) {
        for (Task b : r) out.add(a.merge(b));
      }
      return out;
    }
  }

  record Concat(List<PartitionShape> parts) implements PartitionShape {
    @Override
    public List<Task> tasks(Sources sources) {
      List<Task> out = new ArrayList<>();
      for (PartitionShape part : parts) {
        List<Task> tasks = part.tasks(sources);
        if (tasks == null) {
          throw new IllegalStateException("a Tandem union over a broadcast only: " + this);
        }
        out.addAll(tasks);
      }
      return out;
    }
  }
}
