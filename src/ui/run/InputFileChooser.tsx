/**
 * "Choose an image… / Choose a .npy…" with the chosen file's name: the input picker of both run
 * views (a Caffe model's Run panel and a loadable's Run view).
 */
import { useRef } from 'react';
import type { InputFile } from '../../worker/api';

export function InputFileChooser({ source, file, emptyText, fileNameClass, testId, onChoose }: {
  source: 'image' | 'array';
  file: InputFile | null;
  /** what the name slot says before a file is chosen */
  emptyText: string;
  fileNameClass: string;
  testId: string;
  onChoose: (file: InputFile) => void;
}) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <div className="run-file">
      <button type="button" onClick={() => picker.current?.click()}>
        Choose {source === 'image' ? 'an image' : 'a .npy'}…
      </button>{' '}
      <span className={file ? fileNameClass : 'muted'}>{file ? file.name : emptyText}</span>
      <input
        ref={picker}
        type="file"
        hidden
        data-testid={testId}
        accept={source === 'image' ? '.png,.jpg,.jpeg,image/png,image/jpeg' : '.npy'}
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          if (f) onChoose({ name: f.name, blob: f });
          e.currentTarget.value = '';
        }}
      />
    </div>
  );
}
