/** A filter over a few named values: a folding list of checkboxes (none ticked = any). */
export function ChoiceList({
  label,
  name,
  options,
  chosen,
  onChange,
  display,
}: {
  label: string;
  name: string;
  options: readonly string[];
  chosen: readonly string[];
  onChange: (values: string[]) => void;
  display?: (value: string) => string;
}) {
  const toggle = (value: string, on: boolean) => onChange(on ? [...chosen, value] : chosen.filter((item) => item !== value));
  return (
    <details class="choice-list" data-filter={name}>
      <summary>
        {label}
        {chosen.length > 0 ? <span class="count"> ({chosen.length})</span> : <span class="any"> (any)</span>}
      </summary>
      <div class="choices">
        {options.length === 0 ? <span class="note">none in these runs</span> : null}
        {options.map((option) => (
          <label key={option}>
            <input
              type="checkbox"
              name={name}
              value={option}
              checked={chosen.includes(option)}
              onChange={(event) => toggle(option, (event.currentTarget as HTMLInputElement).checked)}
            />
            {display === undefined ? option : display(option)}
          </label>
        ))}
        {chosen.length > 0 ? (
          <button type="button" class="link" onClick={() => onChange([])}>
            clear
          </button>
        ) : null}
      </div>
    </details>
  );
}
