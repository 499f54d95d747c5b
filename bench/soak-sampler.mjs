// Loaded into the server by bench/soak.mjs (NODE_OPTIONS=--import), so the soak can start the server the way a
// person does (`node dist/server/cli.js`, whatever that command does with its process) and still read its memory
// from inside: on SIGUSR2 it reads the request the soak left in SOAK_SAMPLE_DIR/<pid>.ask ('mem', 'smaps', 'heap'
// or 'gc') and writes its answer to SOAK_SAMPLE_DIR/<pid>.json (whole, by a rename). Idle otherwise: no timer, no
// listener but the signal's. Any Node process started with it answers, so a waiting launcher can be read too.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

const dir = process.env.SOAK_SAMPLE_DIR;
if (dir) {
  const status = () => Object.fromEntries(fs.readFileSync('/proc/self/status', 'utf8').split('\n').map((l) => l.split(/:\s+/)).filter((p) => p.length === 2));
  const kib = (v) => Number(String(v).split(' ')[0]) / 1024;
  const mib = (b) => b / 1048576;
  const answers = {
    mem() {
      const st = status();
      const u = process.memoryUsage();
      // The process's children (the OCR and PDF workers' hosts): their memory is the server's too.
      let children = 0;
      let childRss = 0;
      for (const task of fs.readdirSync('/proc/self/task')) {
        for (const pid of fs.readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
          try {
            const cs = Object.fromEntries(fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').map((l) => l.split(/:\s+/)).filter((p) => p.length === 2));
            if (cs.VmRSS === undefined) continue;
            children++;
            childRss += kib(cs.VmRSS);
          } catch {}
        }
      }
      // The heap's code: compiled code and its metadata, bytecode and its metadata, and the scripts' sources.
      const code = v8.getHeapCodeStatistics();
      return {
        rss: kib(st.VmRSS),
        anon: kib(st.RssAnon),
        file: kib(st.RssFile),
        heapUsed: mib(u.heapUsed),
        heapTotal: mib(u.heapTotal),
        external: mib(u.external),
        arrayBuffers: mib(u.arrayBuffers),
        code: mib(code.code_and_metadata_size),
        bytecode: mib(code.bytecode_and_metadata_size),
        sources: mib(code.external_script_source_size),
        // Each space of the heap: resident (physical) / used, MiB (a busy spell's grown new space stays committed).
        spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((x) => [x.space_name.replace(/_space$/, ''), [Math.round(mib(x.physical_space_size) * 10) / 10, Math.round(mib(x.space_used_size) * 10) / 10]])),
        fds: fs.readdirSync('/proc/self/fd').length,
        threads: Number(st.Threads),
        children,
        childRss,
      };
    },
    smaps() {
      // Resident memory by mapping: the C heap (brk), anonymous mappings by size (glibc's arenas are 64 MiB
      // reservations; V8's pages are 256 KiB), files.
      // And each file's resident pages (a shared library or the binary's data touched on first use).
      const groups = {};
      const files = {};
      let name = '';
      let file = '';
      for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
        const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
        if (head) {
          const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1048576;
          file = head[3].startsWith('/') ? head[3] : '';
          name = head[3] ? (file ? 'file' : head[3]) : size >= 60 ? 'anon ≥60 MiB (arena heaps, reservations)' : size >= 1 ? 'anon 1-60 MiB' : 'anon < 1 MiB';
        } else if (line.startsWith('Rss:')) {
          const mib = Number(line.split(/\s+/)[1]) / 1024;
          groups[name] = (groups[name] ?? 0) + mib;
          if (file) files[file] = (files[file] ?? 0) + mib;
        }
      }
      const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 100) / 100]));
      return { ...round(groups), files: round(files) };
    },
    heap() {
      // What the JS heap holds, for a look in DevTools or by script (a snapshot costs a pause of the server).
      return { file: v8.writeHeapSnapshot(path.join(dir, `${process.pid}.heapsnapshot`)) };
    },
    gc() {
      v8.setFlagsFromString('--expose-gc');
      vm.runInNewContext('gc')();
      return answers.mem();
    },
    // Baseline (Sparkplug) code flushed as bytecode is, from now on (V8 reads the flag at each full collection).
    flushBaseline() {
      v8.setFlagsFromString('--flush-baseline-code');
      return answers.mem();
    },
  };
  process.on('SIGUSR2', () => {
    const ask = fs.readFileSync(path.join(dir, `${process.pid}.ask`), 'utf8').trim();
    const out = path.join(dir, `${process.pid}.json`);
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(answers[ask]()));
    fs.renameSync(`${out}.tmp`, out);
  });
}
